import type { Readable } from 'node:stream';

/** The drivers STORAGE_DRIVER names: `local` keeps objects under DATA_DIR, `s3` in a bucket of an S3-compatible server. */
export const storageDrivers = ['local', 's3'] as const;
export type StorageDriverName = (typeof storageDrivers)[number];

export interface WriteOptions {
  /** The most bytes the body may have. Reading stops as soon as it passes this, and the write fails with `too_large`. */
  maxBytes: number;
  /** Stored with the object and answered by `read` and `head` (and by S3 on a presigned GET). */
  contentType: string;
  /** Aborting it stops the write: it fails with the signal's reason and stores nothing. */
  signal?: AbortSignal | undefined;
}

/** An object just written: its size and SHA-256 were measured on the way in. */
export interface WrittenObject {
  key: string;
  sizeBytes: number;
  /** Lower-case hex SHA-256 of the bytes stored. */
  sha256: string;
  /** The entity tag `read` and `head` answer for it, quoted as in HTTP. */
  etag: string;
  contentType: string;
}

export interface ObjectInfo {
  key: string;
  sizeBytes: number;
  /** Quoted, as in HTTP. Changes whenever the object does; not a checksum of a known kind (S3 makes its own). */
  etag: string;
  contentType: string;
  lastModified: Date;
}

/** A listing entry: what `list` learns without reading each object. */
export interface ObjectSummary {
  key: string;
  sizeBytes: number;
  lastModified: Date;
}

/**
 * Bytes of an object, as an HTTP Range names them: from `start` to `end` inclusive (`end` past the object's end, or
 * absent, means to its end), or its last `suffixLength` bytes (all of it when the object is shorter).
 */
export type ByteRange = { start: number; end?: number | undefined } | { suffixLength: number };

export interface ReadOptions {
  range?: ByteRange | undefined;
  signal?: AbortSignal | undefined;
}

/** An object being read. The caller must consume `body` or destroy it (an S3 read holds a connection until then). */
export interface ObjectRead extends ObjectInfo {
  body: Readable;
  /** The bytes of `body`: `sizeBytes` for a whole read, the range's length for a range read. */
  contentLength: number;
  /** The bytes `body` holds, inclusive, when a range was asked for (for `Content-Range: bytes start-end/sizeBytes`). */
  range?: { start: number; end: number } | undefined;
}

export interface PresignOptions {
  /** How long the URL works, in seconds: 1 to 604 800 (7 days, SigV4's limit); 300 when absent. */
  expiresInSeconds?: number | undefined;
}

/**
 * One place for the service's files, whichever driver keeps them. Keys are made by the service (`objectKey` in
 * src/storage/keys.ts), never from a user's file name; a key outside the grammar fails with `invalid_key`. Failures
 * are `StorageError`s (src/storage/errors.ts) with a stable `code`.
 */
export interface ObjectStorage {
  readonly driver: StorageDriverName;

  /**
   * Streams `body` into `key`, never holding it whole in memory (the S3 driver holds at most two 5 MiB parts), and
   * measures its size and SHA-256 on the way. The object appears complete or not at all, replacing any object at the
   * key only once complete: a failed write (`too_large`, the body's own error, an abort, a backend failure) leaves
   * what was there before and nothing else.
   *
   * `body` belongs to the caller: on failure it is left unpiped and paused, never destroyed, so an HTTP handler can
   * still answer 413 on the connection the body came in on (and then close it rather than read the rest).
   */
  write(key: string, body: Readable, options: WriteOptions): Promise<WrittenObject>;

  /** The object, whole or a range of it, as a stream. `not_found` when absent; `range_not_satisfiable` past its end. */
  read(key: string, options?: ReadOptions): Promise<ObjectRead>;

  /** The object's size, entity tag and type; `undefined` when absent. */
  head(key: string): Promise<ObjectInfo | undefined>;

  /** Removes the object. Removing an absent one succeeds: a retried delete is a no-op. */
  delete(key: string): Promise<void>;

  /** The objects whose keys start with `prefix` (whole segments, then the start of one), in no particular order. */
  list(prefix: string): AsyncIterable<ObjectSummary>;

  /**
   * A URL that GETs the object without credentials until it expires (S3 only: clients fetch from the bucket, so the
   * playback route redirects there). Absent on the local driver, whose objects the service serves itself with `read`.
   * Checks nothing: a URL for an absent key answers 404 when fetched.
   */
  presignedGetUrl?(key: string, options?: PresignOptions): Promise<string>;

  /** Releases connections (S3). The storage must not be used after. */
  close(): Promise<void>;
}
