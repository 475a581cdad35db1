import { parentPort, workerData } from 'node:worker_threads';
import { driveLoad } from './http-load.ts';
import type { LoadThreadMessage, ThreadedIngestLoad } from './ingest-load-thread.ts';
import { signedEnvelopes } from './ingest-load.ts';

// The load thread of driveIngestLoadInThread: the clients, their signing and their HTTP calls, then one message with the result.
const options = workerData as Omit<ThreadedIngestLoad, 'onProgress' | 'signal'>;
const stopped = new AbortController();
const post = (message: LoadThreadMessage) => parentPort!.postMessage(message);
parentPort!.on('message', () => stopped.abort());

const result = await driveLoad({
  origin: options.target.origin,
  clients: options.clients,
  durationMs: options.durationMs,
  ...(options.ratePerSecond ? { ratePerSecond: options.ratePerSecond } : {}),
  next: signedEnvelopes(options.runTag, options.phase, options.target),
  signal: stopped.signal,
  onProgress: (elapsedMs, accepted, other, acceptedSinceLast) => post({ kind: 'progress', elapsedMs, accepted, other, acceptedSinceLast }),
});
post({ kind: 'done', result });
parentPort!.close();
