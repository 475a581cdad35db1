import type { Ffmpeg } from './find-ffmpeg.ts';
import { inspectRecording, type AcceptedRecording, type Rejection } from './inspect-recording.ts';
import type { RecordingLimits } from './limits.ts';
import { normaliseRecording, type DeliveryFile } from './normalise-recording.ts';

export type ProcessingStage = 'checking' | 'encoding' | 'verifying';

export interface ProcessingProgress {
  stage: ProcessingStage;
  /** The whole job's share done, 0 to 1; it never goes back (a re-encode for the peaks holds it still). */
  fraction: number;
}

export interface ProcessOptions {
  /** Where the delivery file goes (e.g. a name made from the file id): written there atomically, only when accepted. */
  outputPath: string;
  /** The Content-Type the upload declared (`type_mismatch` when an audio type disagrees with the bytes). */
  declaredType?: string | undefined;
  limits: RecordingLimits;
  /** Aborting kills ffmpeg and removes the partial output; the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** About twice a second while ffmpeg runs, whether or not the fraction moved: what an activity heartbeats. */
  onProgress?: ((progress: ProcessingProgress) => void) | undefined;
}

export interface ProcessedRecording {
  accepted: true;
  /** The file as uploaded: its type from the bytes, format, length and the loudness of its mono downmix. */
  original: Omit<AcceptedRecording, 'accepted'>;
  /** The file devices play. */
  delivery: DeliveryFile;
  /** 200 peaks of the delivery file, 0 to 1, for the console. */
  waveform: number[];
}

/** Each stage's share of the whole, by what it decodes: two full decodes with loudnorm, then a light one. */
const stageSpans: Record<ProcessingStage, [from: number, to: number]> = {
  checking: [0, 0.45],
  encoding: [0.45, 0.9],
  verifying: [0.9, 1],
};

/**
 * Checks the file and, when it passes, makes its delivery file: `inspectRecording` then `normaliseRecording`, with one
 * progress scale over both. Resolves with the rejection (a verdict on the file, not a failure) or the result.
 */
export async function processRecording(ffmpeg: Ffmpeg, inputPath: string, options: ProcessOptions): Promise<Rejection | ProcessedRecording> {
  let done = 0;
  const report = (stage: ProcessingStage, fraction: number) => {
    const [from, to] = stageSpans[stage];
    // Reported even when it does not move (a re-encode for the peaks), so that a heartbeat goes out all the same.
    done = Math.max(done, from + (to - from) * fraction);
    options.onProgress?.({ stage, fraction: Math.round(done * 1000) / 1000 });
  };

  const inspection = await inspectRecording(ffmpeg, inputPath, { ...options, onProgress: (fraction) => report('checking', fraction) });
  if (!inspection.accepted) return inspection;
  const { delivery, waveform } = await normaliseRecording(ffmpeg, inputPath, inspection, {
    outputPath: options.outputPath,
    signal: options.signal,
    onProgress: report,
  });
  report('verifying', 1);
  const { accepted: _accepted, ...original } = inspection;
  return { accepted: true, original, delivery, waveform };
}
