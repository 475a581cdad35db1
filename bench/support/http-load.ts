import { Agent, request } from 'node:http';
import { pace } from './pace.ts';

/** One request a load client sends: the path on the target, its headers and its body. */
export interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** What the caller wants back with the answer (a messageId, say); kept for 202s only. */
  tag: string;
}

export interface LoadResult {
  /** Answers by HTTP status; a request that failed without one counts under its error code. */
  statuses: Map<string, number>;
  /** Latency of every 202, in ms: the HTTP call only (request written → response read). */
  acceptedMs: number[];
  /** The tags of the requests answered 202. */
  acceptedTags: string[];
  /** Epoch ms at which each 202's request was sent, in the order of `acceptedTags`. */
  acceptedSentAt: number[];
  /** First request → last answer, in ms (the clients stop starting requests at the deadline). */
  wallMs: number;
  /** Epoch ms at which the first request was sent. */
  startedAt: number;
  sent: number;
}

export interface LoadOptions {
  /** http://host:port of the target. */
  origin: string;
  clients: number;
  durationMs: number;
  /** Builds request number `index` (0, 1, 2… across all clients), signed at the moment it is sent. */
  next(index: number): LoadRequest;
  /** Called about every `progressEveryMs` with the figures so far. */
  onProgress?: (elapsedMs: number, accepted: number, other: number, acceptedSinceLast: number) => void;
  progressEveryMs?: number;
  /** Stops the clients early (no new requests; those in flight finish). */
  signal?: AbortSignal;
  /**
   * Paces the load: request number i is sent no earlier than i / ratePerSecond after the start, by whichever client
   * is free, so the load holds this rate as long as `clients` in flight can carry it. Unset: back-to-back (closed loop).
   */
  ratePerSecond?: number;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * A load driver: `clients` loops, each with at most one request in flight over a keep-alive `http.Agent` of its own
 * size, sending back-to-back (closed loop) or at `ratePerSecond`, until the deadline (or the signal). No dependencies
 * beyond node:http.
 */
export async function driveLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.clients, maxFreeSockets: options.clients });
  const statuses = new Map<string, number>();
  const acceptedMs: number[] = [];
  const acceptedTags: string[] = [];
  const acceptedSentAt: number[] = [];
  let sent = 0;
  let other = 0;
  const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);

  const post = (req: LoadRequest) =>
    new Promise<number>((resolve, reject) => {
      const outgoing = request(
        `${options.origin}${req.path}`,
        {
          method: 'POST',
          agent,
          headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)), 'user-agent': 'bench-ingest/1' },
        },
        (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
          res.once('error', reject);
        },
      );
      outgoing.once('error', reject);
      outgoing.end(req.body);
    });

  const startedAt = now();
  const deadline = startedAt + options.durationMs;
  let acceptedAtLastReport = 0;
  const progressEvery = options.progressEveryMs ?? 2000;
  const timer = options.onProgress
    ? setInterval(() => {
        const at = now();
        options.onProgress!(at - startedAt, acceptedMs.length, other, acceptedMs.length - acceptedAtLastReport);
        acceptedAtLastReport = acceptedMs.length;
      }, progressEvery)
    : undefined;

  const untilDue = options.ratePerSecond ? pace(options.ratePerSecond) : undefined;

  const client = async () => {
    while (now() < deadline && !options.signal?.aborted) {
      const index = sent++;
      if (untilDue) {
        await untilDue(index);
        if (now() >= deadline || options.signal?.aborted) {
          sent -= 1; // this index was never sent
          break;
        }
      }
      const req = options.next(index);
      const started = now();
      try {
        const status = await post(req);
        if (status === 202) {
          acceptedMs.push(now() - started);
          acceptedTags.push(req.tag);
          acceptedSentAt.push(started);
        } else other += 1;
        count(String(status));
      } catch (error) {
        other += 1;
        count((error as NodeJS.ErrnoException).code ?? 'error');
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.clients }, client));
  } finally {
    if (timer) clearInterval(timer);
    agent.destroy();
  }
  return { statuses, acceptedMs, acceptedTags, acceptedSentAt, wallMs: now() - startedAt, startedAt, sent };
}
