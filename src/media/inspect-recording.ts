import { stat } from 'node:fs/promises';
import { audioTypeFacts, audioTypes, declaredTypeAgrees, mediaTypeOf, type AudioType } from './audio-types.ts';
import { withFileSource } from './byte-source.ts';
import { detectAudioType, type Detection } from './detect-audio-type.ts';
import type { Ffmpeg } from './find-ffmpeg.ts';
import { recordingRules, type RecordingLimits } from './limits.ts';
import { measureFilter, parseLoudnormReport, type LoudnessMeasurement } from './loudness.ts';
import { demuxerOf, inputArgs, probeFile } from './probe.ts';
import { ffmpegComplaint, runFfmpeg } from './run-ffmpeg.ts';

/** Why a file is refused, as the file record and the API say it. Stable: clients branch on them. */
export const rejectionReasons = ['not_audio', 'unreadable', 'type_mismatch', 'too_short', 'too_long', 'too_large', 'silent'] as const;
export type RejectionReason = (typeof rejectionReasons)[number];

export interface Rejection {
  accepted: false;
  reason: RejectionReason;
  /** One sentence for a person: what was found, against which limit. */
  detail: string;
}

/** A file that passed every check, as it is: what the bytes are and what ffmpeg measured of them. */
export interface AcceptedRecording {
  accepted: true;
  type: AudioType;
  /** The canonical Content-Type of that type (`audio/wav`, `audio/mpeg`, `audio/mp4` …), whatever was declared. */
  contentType: string;
  sizeBytes: number;
  /** ffmpeg's demuxer and codec names (`wav` / `pcm_s16le`, `mp3` / `mp3`, `mov,mp4,m4a,3gp,3g2,mj2` / `aac`). */
  container: string;
  codec: string;
  sampleRate: number;
  channels: number;
  /** The decoded length: what plays, not what the header says. */
  durationMs: number;
  /** Of its mono downmix, which is what the delivery file keeps. */
  loudness: LoudnessMeasurement;
}

export type Inspection = Rejection | AcceptedRecording;

export interface InspectOptions {
  /** The Content-Type the upload declared; undefined, empty or application/octet-stream declare nothing. */
  declaredType?: string | undefined;
  limits: RecordingLimits;
  signal?: AbortSignal | undefined;
  /** The measuring pass's progress, 0 to 1. */
  onProgress?: ((fraction: number) => void) | undefined;
}

/** A header may be off by a few bytes (a pad byte, a writer's slip); a file that lacks more was cut off. */
const truncationSlackBytes = 1024;
/** Decoders trim a few milliseconds (MP3's encoder delay); a file that plays shorter than this was cut off. */
const cutOffSeconds = (stated: number) => Math.max(0.5, stated * 0.02);

const acceptedLabels = audioTypes.filter((type) => type !== 'ogg-opus').map((type) => audioTypeFacts[type].label).join(', ').replace('Ogg Vorbis', 'Ogg (Vorbis or Opus)');

/**
 * Runs the checks in order, cheapest first, and stops at the first that fails: size, the type from the bytes, the
 * declared type, the container's own length, what ffmpeg reads of the headers, then one decoding pass (loudnorm's
 * measurement of the mono downmix) for what plays: length, loudness and peak.
 */
export async function inspectRecording(ffmpeg: Ffmpeg, path: string, options: InspectOptions): Promise<Inspection> {
  const { limits, signal } = options;
  const { size } = await stat(path);
  if (size > limits.maxBytes) return rejected('too_large', `The file has ${size} bytes, over the limit of ${limits.maxBytes}.`);

  const detection = await withFileSource(path, detectAudioType);
  const typed = checkDetectedType(detection, options.declaredType);
  if (!typed.accepted) return typed;
  const { type } = typed;
  const claimedSize = detection.audio ? detection.claimedSize : undefined;
  const { label, contentType } = audioTypeFacts[type];
  if (claimedSize !== undefined && claimedSize - size > truncationSlackBytes) {
    return rejected('unreadable', `The ${label} header announces ${claimedSize} bytes, and the file ends after ${size}: it was cut off.`);
  }

  const demuxer = demuxerOf(type);
  const { probe, log: probeLog } = await probeFile(ffmpeg, path, demuxer, signal);
  if (!probe) return rejected('unreadable', `ffmpeg finds no audio it can read in this ${label}: ${ffmpegComplaint(probeLog)}`);
  if (probe.hasVideo) return rejected('not_audio', `The ${label} holds video as well as audio.`);
  if (probe.statedSeconds !== undefined && probe.statedSeconds > limits.maxSeconds + 0.5) return tooLong(probe.statedSeconds, limits, false);

  // Decoding stops a second past the limit, so that a header that understates the length costs no more than that.
  const decodeLimit = limits.maxSeconds + 1;
  const expected = Math.min(probe.roughSeconds ?? decodeLimit, decodeLimit);
  let decodedMicros = 0;
  const { exitCode, log } = await runFfmpeg(ffmpeg, {
    args: [...inputArgs(demuxer, path), '-map', '0:a:0', '-af', measureFilter, '-t', String(decodeLimit), '-f', 'null', '-'],
    signal,
    onTime: (micros) => {
      decodedMicros = Math.max(decodedMicros, micros);
      options.onProgress?.(Math.min(1, micros / 1e6 / expected));
    },
  });
  const report = parseLoudnormReport(log);
  const seconds = decodedMicros / 1e6;
  if (exitCode !== 0 || !report) return rejected('unreadable', `ffmpeg cannot decode this ${label}: ${ffmpegComplaint(log)}`);
  if (seconds === 0) return rejected('unreadable', `No audio could be decoded from this ${label}.`);
  if (probe.statedSeconds !== undefined && seconds < limits.maxSeconds && probe.statedSeconds - seconds > cutOffSeconds(probe.statedSeconds)) {
    return rejected('unreadable', `The ${label} header announces ${format(probe.statedSeconds)} s, and the audio ends after ${format(seconds)} s: it was cut off.`);
  }
  if (seconds < recordingRules.minSeconds) return rejected('too_short', `It plays ${format(seconds)} s, under the minimum of ${recordingRules.minSeconds} s.`);
  if (seconds > limits.maxSeconds) return tooLong(seconds, limits, seconds >= decodeLimit - 0.05);
  const { integratedLufs, truePeakDbtp } = report.input;
  if (!(truePeakDbtp >= recordingRules.silentBelowDbfs)) {
    const peak = Number.isFinite(truePeakDbtp) ? `${truePeakDbtp.toFixed(1)} dBFS` : 'digital silence';
    return rejected('silent', `Its peak is ${peak}, under ${recordingRules.silentBelowDbfs} dBFS.`);
  }
  // A click in silence: peaks, but nothing reaches the −70 LUFS that loudness is measured from, so nothing to normalise.
  if (!Number.isFinite(integratedLufs)) return rejected('silent', 'Nothing in it is loud enough to measure its loudness (all under −70 LUFS).');

  return {
    accepted: true,
    type,
    contentType,
    sizeBytes: size,
    container: probe.container,
    codec: probe.audio.codec,
    sampleRate: probe.audio.sampleRate,
    channels: probe.audio.channels,
    durationMs: Math.round(seconds * 1000),
    loudness: report.input,
  };
}

/**
 * The verdict the type alone gives: `not_audio` when the bytes are none of the accepted types, `type_mismatch` when a
 * declared audio type disagrees with them, nothing when both pass. The API gives it on an upload's first bytes, before
 * storing anything; the checks give it again on the whole file.
 */
export function checkDetectedType(detection: Detection, declaredType: string | undefined): Rejection | { accepted: true; type: AudioType } {
  if (!detection.audio) return rejected('not_audio', `The bytes are ${detection.found}; accepted are ${acceptedLabels}.`);
  if (!declaredTypeAgrees(declaredType, detection.type)) {
    return rejected('type_mismatch', `It was declared ${mediaTypeOf(declaredType ?? '')}, but the bytes are ${audioTypeFacts[detection.type].label}.`);
  }
  return { accepted: true, type: detection.type };
}

function rejected(reason: RejectionReason, detail: string): Rejection {
  return { accepted: false, reason, detail };
}

/** `capped`: decoding stopped at the limit, so the take is at least that long. */
function tooLong(seconds: number, limits: RecordingLimits, capped: boolean): Rejection {
  return rejected('too_long', `It plays ${capped ? 'more than ' : ''}${format(seconds)} s, over the limit of ${limits.maxSeconds} s.`);
}

const format = (seconds: number) => seconds.toFixed(seconds < 10 ? 2 : 1);
