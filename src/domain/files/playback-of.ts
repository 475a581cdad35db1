import type { RecordingFile } from '../../persistence/entities/recording-file.ts';

/** What a message that plays this file records of it: its URL, id, length and type. */
export const playbackOf = (file: RecordingFile) => ({
  recordingUrl: file.url,
  recordingFileId: file.id,
  recordingDurationMs: file.durationMs ?? null,
  recordingContentType: file.contentType ?? null,
});
