/**
 * No usable ffmpeg: none at FFMPEG_PATH or on PATH (or, in embedded mode and the tests, none could be installed), or
 * the one found lacks what processing needs. The message is one line a person can act on; the API answers it with
 * 503 `media_unavailable`, and `npm start` prints it and goes on without media.
 */
export class MediaUnavailableError extends Error {
  override name = 'MediaUnavailableError';
  readonly code = 'media_unavailable';
}

/**
 * ffmpeg failed on a file that the checks had accepted (it decoded once and not again, or the disk filled up): a
 * fault of the machine rather than of the file, so the activity's retry may well succeed.
 */
export class MediaProcessingError extends Error {
  override name = 'MediaProcessingError';
  readonly code = 'media_processing_failed';
}
