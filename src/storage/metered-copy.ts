import { createHash } from 'node:crypto';
import { finished, Transform, type Readable } from 'node:stream';
import { finished as finishedStream } from 'node:stream/promises';
import { isStorageError, StorageError } from './errors.ts';

export interface Metered<T> {
  result: T;
  sizeBytes: number;
  sha256: string;
}

/**
 * Runs `sink` on a stream of `body`'s bytes that fails with `too_large` as soon as they pass `maxBytes`, measuring
 * their size and SHA-256 on the way. Backpressure holds: `body` is read only as fast as `sink` takes it, so what was
 * read past the cap is at most a few stream buffers.
 *
 * On failure, `body` is unpiped and paused, never destroyed (it is the caller's: an HTTP request whose socket must
 * still carry the 413), and the failure is, in this order: `too_large`; `body`'s own error (or its premature close);
 * the signal's reason; a `StorageError` from the sink; else the sink's failure as `unavailable`. The sink must leave
 * nothing behind when it fails: the drivers write to a temporary name, or abort the multipart upload.
 */
export async function copyMetered<T>(
  body: Readable,
  options: { maxBytes: number; signal?: AbortSignal | undefined },
  sink: (metered: Readable) => Promise<T>,
): Promise<Metered<T>> {
  const { maxBytes, signal } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be a whole number of bytes, not ${maxBytes}`);
  if (body.destroyed || body.readableEnded) throw new Error('the body was already consumed or destroyed');
  signal?.throwIfAborted();

  const hash = createHash('sha256');
  let sizeBytes = 0;
  let overCap = false;
  let bodyFailure: Error | undefined;
  const meter = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      sizeBytes += bytes.length;
      if (sizeBytes > maxBytes) {
        overCap = true;
        done(tooLarge(maxBytes));
        return;
      }
      hash.update(bytes);
      done(null, bytes);
    },
  });

  // A body that errors, or closes before its end (a client that hung up), ends the write with its own failure.
  const stopWatchingBody = finished(body, { writable: false }, (error) => {
    if (!error) return;
    bodyFailure = error;
    meter.destroy(error);
  });
  const onAbort = () => meter.destroy(signal?.reason as Error);
  signal?.addEventListener('abort', onAbort, { once: true });
  body.pipe(meter);

  let succeeded = false;
  try {
    const result = await sink(meter);
    succeeded = true;
    return { result, sizeBytes, sha256: hash.digest('hex') };
  } catch (error) {
    if (overCap) throw tooLarge(maxBytes);
    if (bodyFailure !== undefined) throw bodyFailure;
    if (signal?.aborted) throw signal.reason;
    if (isStorageError(error)) throw error;
    throw new StorageError('unavailable', `the storage backend failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    stopWatchingBody();
    signal?.removeEventListener('abort', onAbort);
    if (!succeeded) {
      body.unpipe(meter);
      body.pause();
      meter.destroy();
    }
  }
}

const tooLarge = (maxBytes: number) => new StorageError('too_large', `the body is larger than ${maxBytes} bytes`);

/**
 * Reads `body` to its end against the cap, keeping none of it: for a body refused on its first bytes, so that the
 * connection it came on can still carry the answer. Fails as `copyMetered` does (`too_large` past the cap).
 */
export function discardMetered(body: Readable, options: { maxBytes: number; signal?: AbortSignal | undefined }): Promise<Metered<void>> {
  return copyMetered(body, options, async (metered) => {
    metered.resume();
    await finishedStream(metered);
  });
}
