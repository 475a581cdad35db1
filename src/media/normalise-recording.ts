import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { deliveryProfile } from './delivery-profile.ts';
import { MediaProcessingError } from './errors.ts';
import type { Ffmpeg } from './find-ffmpeg.ts';
import type { AcceptedRecording } from './inspect-recording.ts';
import { meterFilter, normaliseFilter, parseLoudnormReport } from './loudness.ts';
import { demuxerOf, inputArgs, parseProbe } from './probe.ts';
import { ffmpegComplaint, runFfmpeg } from './run-ffmpeg.ts';
import { waveformCollector } from './waveform.ts';

/** The delivery file as ffmpeg reads it back: its format, length and loudness are measured, not assumed. */
export interface DeliveryFile {
  path: string;
  sizeBytes: number;
  /** Always `audio/mp4`. */
  contentType: string;
  codec: string;
  /** `LC`. */
  profile: string | undefined;
  sampleRate: number;
  channels: number;
  bitrateKbps: number | undefined;
  durationMs: number;
  integratedLufs: number;
  truePeakDbtp: number;
  /** `linear`: one gain for the whole take. `dynamic`: loudnorm limited its peaks to reach the loudness. */
  normalisation: 'linear' | 'dynamic';
  /** The gain (0 or below, in dB) that brought the peaks of an earlier encode under the ceiling. */
  peakCorrectionDb: number;
}

export interface NormalisedRecording {
  delivery: DeliveryFile;
  /** `deliveryProfile.waveformPoints` peaks of the delivery file, 0 (silence) to 1 (full scale). */
  waveform: number[];
}

export interface NormaliseOptions {
  /** Where the delivery file goes (its folder is made); it appears there complete (renamed from a file beside it) or not at all. */
  outputPath: string;
  signal?: AbortSignal | undefined;
  onProgress?: ((stage: 'encoding' | 'verifying', fraction: number) => void) | undefined;
}

/**
 * Meters disagree by a few hundredths of a dB on true peaks, so a delivery file is re-encoded a little under the
 * ceiling when it measures within this of it.
 */
const peakMeterMarginDb = 0.1;
const peakCorrectionTargetDbtp = deliveryProfile.truePeakCeilingDbtp - 2 * peakMeterMarginDb;
/** Each correction measures the encode it corrects, so one is nearly always enough. */
const maxEncodes = 4;

/**
 * The second loudnorm pass and the AAC encode, into a file beside `outputPath`; then the delivery file is read back
 * once, for its format, loudness, true peak and waveform. When the encoder pushed a true peak over the ceiling, the
 * encode runs again with that much less gain. The same input always gives the same bytes (bitexact output, no
 * metadata carried over), so a retried activity rewrites the same file.
 */
export async function normaliseRecording(ffmpeg: Ffmpeg, inputPath: string, input: AcceptedRecording, options: NormaliseOptions): Promise<NormalisedRecording> {
  const { outputPath, signal } = options;
  const seconds = input.durationMs / 1000;
  await mkdir(dirname(outputPath), { recursive: true });
  let peakCorrectionDb = 0;
  for (let encode = 1; ; encode++) {
    const partial = join(dirname(outputPath), `.${basename(outputPath)}.partial-${randomBytes(6).toString('hex')}`);
    try {
      const encoded = await runFfmpeg(ffmpeg, {
        args: [...inputArgs(demuxerOf(input.type), inputPath), ...encodeArgs(input, peakCorrectionDb), `file:${partial}`],
        signal,
        onTime: (micros) => options.onProgress?.('encoding', Math.min(1, micros / 1e6 / seconds)),
      });
      const report = parseLoudnormReport(encoded.log);
      if (encoded.exitCode !== 0 || !report) throw new MediaProcessingError(`ffmpeg could not encode the delivery file: ${ffmpegComplaint(encoded.log)}`);

      const delivered = await readBack(ffmpeg, partial, seconds, options);
      const over = delivered.truePeakDbtp > deliveryProfile.truePeakCeilingDbtp - peakMeterMarginDb;
      if (over && encode < maxEncodes) {
        peakCorrectionDb += peakCorrectionTargetDbtp - delivered.truePeakDbtp;
        continue;
      }
      if (over) throw new MediaProcessingError(`The delivery file's true peak stays at ${delivered.truePeakDbtp} dBTP after ${encode} encodes.`);
      await rename(partial, outputPath);
      return {
        delivery: { ...delivered.file, path: outputPath, normalisation: report.normalisation, peakCorrectionDb: round(peakCorrectionDb) },
        waveform: delivered.waveform,
      };
    } finally {
      await rm(partial, { force: true });
    }
  }
}

function encodeArgs(input: AcceptedRecording, peakCorrectionDb: number): string[] {
  const { codec, profile, bitrateKbps, sampleRate, channels } = deliveryProfile;
  return [
    '-map', '0:a:0',
    // Nothing of the upload's tags (names, places, cover art) travels to every device.
    '-map_metadata', '-1', '-map_chapters', '-1',
    '-af', normaliseFilter(input.loudness, peakCorrectionDb),
    // The encoder's default search (twoloop) adds bursts of several dB to steady tones at this rate; `fast` does not.
    '-c:a', codec, '-aac_coder', 'fast', '-profile:a', profile === 'LC' ? 'aac_low' : profile, '-b:a', `${bitrateKbps}k`,
    '-ar', String(sampleRate), '-ac', String(channels),
    // No version strings or times in the file: the same input gives the same bytes.
    '-fflags', '+bitexact', '-flags:a', '+bitexact',
    // The index first, so a device can start playing before the whole file is in.
    '-movflags', '+faststart',
    '-f', 'ipod', '-y',
  ];
}

/** One decode of the delivery file: ffmpeg's summary of it, loudnorm's measurement, and the waveform's samples. */
async function readBack(ffmpeg: Ffmpeg, path: string, seconds: number, options: NormaliseOptions) {
  const waveform = waveformCollector(deliveryProfile.waveformPoints);
  const { exitCode, log } = await runFfmpeg(ffmpeg, {
    args: [
      ...inputArgs('mp4', path),
      '-filter_complex', `[0:a:0]asplit=2[wave][meter];[meter]${meterFilter},anullsink`,
      '-map', '[wave]', '-f', 'f32le', '-ac', '1', 'pipe:1',
    ],
    signal: options.signal,
    onStdout: (chunk) => waveform.push(chunk),
    onTime: (micros) => options.onProgress?.('verifying', Math.min(1, micros / 1e6 / seconds)),
  });
  const probe = parseProbe(log);
  const report = parseLoudnormReport(log);
  if (exitCode !== 0 || !probe || !report) throw new MediaProcessingError(`ffmpeg could not read the delivery file back: ${ffmpegComplaint(log)}`);
  const { peaks, samples } = waveform.finish();
  const { size } = await stat(path);
  return {
    truePeakDbtp: report.input.truePeakDbtp,
    waveform: peaks,
    file: {
      sizeBytes: size,
      contentType: deliveryProfile.contentType,
      codec: probe.audio.codec,
      profile: probe.audio.profile,
      sampleRate: probe.audio.sampleRate,
      channels: probe.audio.channels,
      bitrateKbps: probe.audio.bitrateKbps,
      durationMs: Math.round((samples / probe.audio.sampleRate) * 1000),
      integratedLufs: report.input.integratedLufs,
      truePeakDbtp: report.input.truePeakDbtp,
    },
  };
}

const round = (value: number) => Math.round(value * 100) / 100;
