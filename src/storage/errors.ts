/**
 * What a storage operation can fail with, whichever driver runs it. Callers branch on `code`:
 * - `too_large`: the body passed the write's `maxBytes`; reading stopped there and nothing was stored (HTTP 413).
 * - `not_found`: no object at the key (a read; `head` answers `undefined` instead).
 * - `invalid_key`: the key breaks the key grammar (src/storage/keys.ts); a bug in the caller, never user input.
 * - `range_not_satisfiable`: the range starts at or past the object's end (HTTP 416).
 * - `unavailable`: the backend failed (disk full, S3 down or refusing the credentials); `cause` says how. Retry later.
 */
export type StorageErrorCode = 'too_large' | 'not_found' | 'invalid_key' | 'range_not_satisfiable' | 'unavailable';

export class StorageError extends Error {
  override name = 'StorageError';
  readonly code: StorageErrorCode;

  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export const isStorageError = (error: unknown, code?: StorageErrorCode): error is StorageError =>
  error instanceof StorageError && (code === undefined || error.code === code);
