import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { rangeHeader } from './byte-range.ts';
import { isStorageError, StorageError } from './errors.ts';
import { assertObjectKey, prefixDirectory } from './keys.ts';
import { copyMetered } from './metered-copy.ts';
import type { ObjectInfo, ObjectRead, ObjectStorage, ObjectSummary, PresignOptions, ReadOptions, WriteOptions, WrittenObject } from './object-storage.ts';

export interface S3StorageSettings {
  /** An S3-compatible server's URL (`http://seaweedfs:8333`); AWS's own endpoint for the region when absent. */
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  /** `http://host/bucket/key` rather than `http://bucket.host/key`: what most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Fixed credentials (tests); the AWS SDK's standard chain when absent (environment, profile, web identity, IMDS). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

export interface S3StorageOptions {
  /** The clock presigned URLs are signed with (tests skew it to sign already-expired URLs). */
  now?: () => Date;
}

/**
 * Parts of a streamed write. 5 MiB is S3's smallest part; one part uploads while the next is read, so a write holds
 * about two parts in memory, and a body of up to 5 MiB is sent as one PutObject.
 */
const partSizeBytes = 5 * 1024 * 1024;
const defaultPresignSeconds = 300;
const maxPresignSeconds = 7 * 24 * 3600;

/**
 * The S3 driver. A write streams through `@aws-sdk/lib-storage`'s `Upload` (multipart for bodies of unknown length),
 * which aborts the multipart upload when the body fails or passes its cap: S3 then shows the old object or the new
 * one, never a part. The client connects lazily, so the service starts while the server is down.
 */
export function createS3Storage(settings: S3StorageSettings, options: S3StorageOptions = {}): ObjectStorage {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
  });
  const Bucket = settings.bucket;
  const now = options.now ?? (() => new Date());

  async function write(key: string, body: Readable, writeOptions: WriteOptions): Promise<WrittenObject> {
    assertObjectKey(key);
    const { result, sizeBytes, sha256 } = await copyMetered(body, writeOptions, (metered) =>
      new Upload({ client, params: { Bucket, Key: key, Body: metered, ContentType: writeOptions.contentType }, partSize: partSizeBytes, queueSize: 1 }).done(),
    );
    return { key, sizeBytes, sha256, etag: result.ETag ?? '""', contentType: writeOptions.contentType };
  }

  async function read(key: string, readOptions: ReadOptions = {}): Promise<ObjectRead> {
    assertObjectKey(key);
    const Range = readOptions.range && rangeHeader(readOptions.range);
    const answer = await client.send(new GetObjectCommand({ Bucket, Key: key, Range }), { abortSignal: readOptions.signal }).catch((error: unknown) => {
      throw readOptions.signal?.aborted ? readOptions.signal.reason : storageErrorOf(error, key);
    });
    const contentRange = Range ? parseContentRange(answer.ContentRange) : undefined;
    const contentLength = answer.ContentLength ?? 0;
    return {
      key,
      body: answer.Body as Readable,
      sizeBytes: contentRange?.sizeBytes ?? contentLength,
      contentLength,
      range: contentRange && { start: contentRange.start, end: contentRange.end },
      etag: answer.ETag ?? '""',
      contentType: answer.ContentType ?? 'application/octet-stream',
      lastModified: answer.LastModified ?? new Date(0),
    };
  }

  async function head(key: string): Promise<ObjectInfo | undefined> {
    assertObjectKey(key);
    try {
      const answer = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
      return {
        key,
        sizeBytes: answer.ContentLength ?? 0,
        etag: answer.ETag ?? '""',
        contentType: answer.ContentType ?? 'application/octet-stream',
        lastModified: answer.LastModified ?? new Date(0),
      };
    } catch (error) {
      const failure = storageErrorOf(error, key);
      if (failure.code === 'not_found') return undefined;
      throw failure;
    }
  }

  async function remove(key: string): Promise<void> {
    assertObjectKey(key);
    await client.send(new DeleteObjectCommand({ Bucket, Key: key })).catch((error: unknown) => {
      const failure = storageErrorOf(error, key);
      if (failure.code !== 'not_found') throw failure;
    });
  }

  async function* list(prefix: string): AsyncIterable<ObjectSummary> {
    prefixDirectory(prefix);
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix || undefined, ContinuationToken })).catch((error: unknown) => {
        throw storageErrorOf(error, prefix);
      });
      for (const entry of page.Contents ?? []) {
        if (entry.Key) yield { key: entry.Key, sizeBytes: entry.Size ?? 0, lastModified: entry.LastModified ?? new Date(0) };
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async function presignedGetUrl(key: string, presign: PresignOptions = {}): Promise<string> {
    assertObjectKey(key);
    const expiresIn = presign.expiresInSeconds ?? defaultPresignSeconds;
    if (!Number.isSafeInteger(expiresIn) || expiresIn < 1 || expiresIn > maxPresignSeconds) {
      throw new RangeError(`expiresInSeconds must be 1 to ${maxPresignSeconds}, not ${expiresIn}`);
    }
    return getSignedUrl(client, new GetObjectCommand({ Bucket, Key: key }), { expiresIn, signingDate: now() });
  }

  return {
    driver: 's3',
    write,
    read,
    head,
    delete: remove,
    list,
    presignedGetUrl,
    close: async () => client.destroy(),
  };
}

/** `bytes 0-99/1234` → its parts. */
function parseContentRange(header: string | undefined): { start: number; end: number; sizeBytes: number } | undefined {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '');
  return match ? { start: Number(match[1]), end: Number(match[2]), sizeBytes: Number(match[3]) } : undefined;
}

/** The SDK's failure as a StorageError: 404 → `not_found`, 416 → `range_not_satisfiable`, anything else `unavailable`. */
function storageErrorOf(error: unknown, key: string): StorageError {
  if (isStorageError(error)) return error;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = (error as Error).name;
  if (status === 404 && name !== 'NoSuchBucket') return new StorageError('not_found', `no object at ${JSON.stringify(key)}`, { cause: error });
  if (status === 416) return new StorageError('range_not_satisfiable', `the range names no byte of ${JSON.stringify(key)}`, { cause: error });
  return new StorageError('unavailable', `S3 failed: ${name}: ${(error as Error).message}`, { cause: error });
}
