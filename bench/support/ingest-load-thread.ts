import { Worker } from 'node:worker_threads';
import type { LoadResult } from './http-load.ts';
import type { IngestTarget } from './ingest-load.ts';

export interface ThreadedIngestLoad {
  target: IngestTarget;
  clients: number;
  durationMs: number;
  /** Tags the messageIds: `msg-<runTag>-<phase>-<index>`. */
  runTag: string;
  phase: string;
  /** Posts per second, spread over the clients; unset: closed loop (see `driveLoad`). */
  ratePerSecond?: number | undefined;
  onProgress?: (elapsedMs: number, accepted: number, other: number, acceptedSinceLast: number) => void;
  signal?: AbortSignal;
}

export type LoadThreadMessage =
  | { kind: 'progress'; elapsedMs: number; accepted: number; other: number; acceptedSinceLast: number }
  | { kind: 'done'; result: LoadResult };

/**
 * `driveLoad` with `signedEnvelopes`, run in a worker thread of its own: the clients' signing and HTTP work does not
 * queue on the event loop of the server under test (which a bench runs in this process), as a remote client's would
 * not. The service and the baseline are both driven this way.
 */
export function driveIngestLoadInThread(options: ThreadedIngestLoad): Promise<LoadResult> {
  const { onProgress, signal, ...data } = options;
  const worker = new Worker(new URL('./ingest-load-worker.ts', import.meta.url), { workerData: data });
  const stop = () => worker.postMessage('stop');
  signal?.addEventListener('abort', stop, { once: true });
  return new Promise<LoadResult>((resolve, reject) => {
    worker.on('message', (message: LoadThreadMessage) => {
      if (message.kind === 'progress') onProgress?.(message.elapsedMs, message.accepted, message.other, message.acceptedSinceLast);
      else resolve(message.result);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the load thread exited with ${code} before it answered`)));
  }).finally(() => signal?.removeEventListener('abort', stop));
}
