/**
 * Storage of the service's files (recordings: originals and delivery files), on local disk or an S3-compatible bucket.
 * Import from here; the drivers are details. See docs/adr/0077-one-storage-interface-local-disk-or-s3.md.
 *
 * ```ts
 * const storage = createStorage(storageSettingsFrom(config));        // STORAGE_DRIVER, DATA_DIR, S3_*
 * const key = objectKey('recordings', fileId, 'original');           // made by the service, never a user's name
 * try {
 *   const stored = await storage.write(key, ctx.req, { maxBytes, contentType: 'application/octet-stream' });
 *   // stored.sizeBytes, stored.sha256, stored.etag
 * } catch (error) {
 *   if (isStorageError(error, 'too_large')) ... // 413: the rest of the body was not read; nothing was stored
 * }
 * const { body, contentLength, range, etag, contentType } = await storage.read(key, { range: { start: 0, end: 99 } });
 * if (storage.presignedGetUrl) redirectTo(await storage.presignedGetUrl(key, { expiresInSeconds: 300 }));
 * await storage.delete(key);                                          // idempotent
 * await discardMetered(ctx.req, { maxBytes });                        // a refused body read to its end, under the cap
 * for await (const { key } of storage.list('recordings/')) ...
 * ```
 *
 * - `write` streams: size cap while reading (`too_large`), size and SHA-256 measured, atomic (complete or nothing,
 *   an older object at the key kept until the new one is complete). The body stream stays the caller's: on failure it
 *   is left paused, never destroyed.
 * - `read` answers a stream (whole, or an HTTP-style byte range) with size, entity tag and content type;
 *   `not_found`, `range_not_satisfiable`.
 * - `head`, `delete` (absent is fine), `list(prefix)`; `presignedGetUrl` on S3 only (the local driver serves `read`).
 * - Every failure is a `StorageError` with a `code`: `too_large`, `not_found`, `invalid_key`, `range_not_satisfiable`,
 *   `unavailable` (the backend failed; retry), except the body's own error and an abort's reason, passed on as they are.
 */
import { ConfigError } from '../config.ts';
import { createLocalStorage, localStorageRoot } from './local-storage.ts';
import type { ObjectStorage } from './object-storage.ts';
import { createS3Storage, type S3StorageOptions, type S3StorageSettings } from './s3-storage.ts';

export type { ByteRange, ObjectInfo, ObjectRead, ObjectStorage, ObjectSummary, PresignOptions, ReadOptions, StorageDriverName, WriteOptions, WrittenObject } from './object-storage.ts';
export { storageDrivers } from './object-storage.ts';
export { isStorageError, StorageError, type StorageErrorCode } from './errors.ts';
export { assertObjectKey, objectKey } from './keys.ts';
export { discardMetered } from './metered-copy.ts';
export type { S3StorageSettings } from './s3-storage.ts';

/** Which driver, and its settings. */
export type StorageSettings = { driver: 'local'; root: string } | ({ driver: 's3' } & S3StorageSettings);

export function createStorage(settings: StorageSettings, options: S3StorageOptions = {}): ObjectStorage {
  return settings.driver === 'local' ? createLocalStorage(settings.root) : createS3Storage(settings, options);
}

/** The storage settings src/config.ts parsed (it checks that `s3` has its bucket). */
export interface StorageConfig {
  STORAGE_DRIVER: 'local' | 's3';
  DATA_DIR: string;
  S3_ENDPOINT?: string | undefined;
  S3_REGION: string;
  S3_BUCKET?: string | undefined;
  S3_FORCE_PATH_STYLE: boolean;
}

export { localStorageRoot };

export function storageSettingsFrom(config: StorageConfig): StorageSettings {
  if (config.STORAGE_DRIVER === 'local') return { driver: 'local', root: localStorageRoot(config.DATA_DIR) };
  if (!config.S3_BUCKET) throw new ConfigError('Configuration error: STORAGE_DRIVER is s3 without S3_BUCKET');
  return { driver: 's3', endpoint: config.S3_ENDPOINT, region: config.S3_REGION, bucket: config.S3_BUCKET, forcePathStyle: config.S3_FORCE_PATH_STYLE };
}
