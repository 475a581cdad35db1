/**
 * The media toolkit: what a recording file goes through before devices play it (docs/recordings.md). Pure functions
 * over local files; no database, no HTTP, no storage. Everything runs ffmpeg, found once per process.
 *
 * ## Finding ffmpeg
 *
 * - `findFfmpeg(env)`: the production lookup, FFMPEG_PATH then `ffmpeg` on PATH, checked to run and to have the
 *   loudnorm filter and the AAC encoder. Resolves with an `Ffmpeg`, or rejects with a `MediaUnavailableError` whose
 *   message is one line (the API answers it with 503 `media_unavailable`; `npm start` prints it and goes on).
 * - `provisionFfmpeg()` in src/dev/ffmpeg-tool.ts does the same for `npm start` and the tests, and installs the
 *   static ffmpeg of PyPI's imageio-ffmpeg wheel into the per-user cache when there is none (dev only: production
 *   entry points must not import src/dev/).
 * - Look it up once, at start, and hand the `Ffmpeg` to whoever needs it; a rejection means "no media", not a crash.
 *
 * ## Processing one file (what the activity calls)
 *
 * ```ts
 * const outcome = await processRecording(ffmpeg, originalPath, {
 *   outputPath: deliveryPath,                // e.g. <scratch>/<fileId>.m4a; written atomically, only when accepted
 *   declaredType: file.contentType,          // the upload's Content-Type, or undefined
 *   limits: recordingLimitsOf(settings),     // RECORDING_MAX_BYTES, RECORDING_MAX_SECONDS
 *   signal: Context.current().cancellationSignal,
 *   onProgress: ({ fraction }) => Context.current().heartbeat({ fraction }),
 * });
 * if (!outcome.accepted) markRejected(outcome.reason, outcome.detail);   // a verdict, not a failure: do not retry
 * else markReady(outcome.original, outcome.delivery, outcome.waveform);  // store outcome.delivery.path
 * ```
 *
 * - A rejection is a value: `{ accepted: false, reason, detail }`, `reason` one of `rejectionReasons` (`not_audio`,
 *   `unreadable`, `type_mismatch`, `too_short`, `too_long`, `too_large`, `silent`), `detail` one sentence.
 * - It throws only for faults of the machine: `MediaUnavailableError` (ffmpeg vanished), `MediaProcessingError`
 *   (ffmpeg failed on a file it had accepted, a full disk), a file system error, or the signal's reason on abort.
 *   Those are worth a retry; aborting kills ffmpeg and removes the partial delivery file.
 * - Idempotent: the same input and output path give the same bytes and the same result, so a retry after a crash
 *   rewrites the one delivery file. It takes two decoding passes of the original and one of the delivery file
 *   (about 5 s for a 120 s take on one loaded core).
 *
 * ## Smaller pieces
 *
 * - `detectAudioType(source)`: the type from the bytes alone, over a file (`withFileSource(path, detectAudioType)`)
 *   or bytes in memory (`bytesSource(head)`), e.g. to refuse a PDF before storing it.
 * - `declaredTypeAgrees(contentType, type)`, `isUploadContentType(contentType)`: the Content-Type rules.
 * - `inspectRecording` and `normaliseRecording`: the two halves of `processRecording`.
 * - `deliveryProfile`: the delivery file's format and targets (`audio/mp4`, `.m4a`, −16 LUFS, −1.5 dBTP, …).
 */
export { audioTypes, audioTypeFacts, declaredTypeAgrees, isUploadContentType, type AudioType } from './audio-types.ts';
export { bytesSource, withFileSource, type ByteSource } from './byte-source.ts';
export { deliveryProfile } from './delivery-profile.ts';
export { detectAudioType, type Detection } from './detect-audio-type.ts';
export { MediaProcessingError, MediaUnavailableError } from './errors.ts';
export { ffmpegAt, findFfmpeg, type Ffmpeg } from './find-ffmpeg.ts';
export { checkDetectedType, inspectRecording, rejectionReasons, type AcceptedRecording, type Inspection, type InspectOptions, type Rejection, type RejectionReason } from './inspect-recording.ts';
export { mediaSupportOf, type MediaSupport } from './media-support.ts';
export { recordingLimitsOf, recordingRules, type RecordingLimits } from './limits.ts';
export type { LoudnessMeasurement } from './loudness.ts';
export { normaliseRecording, type DeliveryFile, type NormalisedRecording, type NormaliseOptions } from './normalise-recording.ts';
export { processRecording, type ProcessedRecording, type ProcessingProgress, type ProcessingStage, type ProcessOptions } from './process-recording.ts';
