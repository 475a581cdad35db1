import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { blockedReason, guardedLookup, normaliseHost, type AllowList } from '../security/ip-policy.ts';

export interface OutboundResponse {
  status: number;
  retryAfter: string | undefined;
  /** The first 4 KB of the body, for the delivery log. */
  body: string;
}

export interface OutboundHttpClient {
  /**
   * `signal` aborts the request when the caller gives up on it, e.g. a cancelled activity on a worker shutting down.
   * A lower-case `user-agent` in `headers` replaces the webhooks' one.
   */
  post(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<OutboundResponse>;
  /**
   * GETs a file from a customer's URL (a recording submitted as a URL) under the same address policy, answering once
   * the headers are in, with the body as a stream the caller reads or destroys. The client's timeout bounds the wait
   * for the headers; `signal` bounds the whole transfer (aborting destroys the body). Redirects are not followed.
   */
  download(url: string, signal?: AbortSignal): Promise<OutboundDownload>;
  close: () => void;
}

export interface OutboundDownload {
  status: number;
  /** Content-Length, when the server sent one. */
  contentLength: number | undefined;
  body: IncomingMessage;
}

export interface OutboundHttpOptions {
  allow: AllowList;
  timeoutMs?: number;
  /** Extra trusted CA certificates (PEM). Production relies on NODE_EXTRA_CA_CERTS; tests pass their own CA. */
  ca?: string | undefined;
  /** Connections kept per host (64 by default); the FCM provider keeps one per request it has in flight. */
  maxSockets?: number;
}

export const responseBodyLimit = 4096;

/** Why a request did not get an HTTP answer. The message goes into the delivery log. */
export class OutboundRequestError extends Error {
  override name = 'OutboundRequestError';
  /**
   * The whole request had been handed to the network when it failed (a timeout, an abort, a reset while waiting for
   * the answer): the receiver may have it. False when it failed before (refused, unresolvable, blocked, TLS).
   */
  readonly sent: boolean;
  /** The address policy refused the URL's address: asking again cannot help. */
  readonly blocked: boolean;

  constructor(message: string, options: { sent?: boolean; blocked?: boolean } = {}) {
    super(message);
    this.sent = options.sent ?? false;
    this.blocked = options.blocked ?? false;
  }
}

/**
 * POSTs to customer URLs. The address check runs again here, at connect time (DNS answers are checked in the
 * lookup, literal IPs before the request), so a name that changed its DNS answer since registration cannot reach a
 * blocked address. Redirects are never followed; only the first 4 KB of a response are read.
 */
export function createOutboundHttpClient(options: OutboundHttpOptions): OutboundHttpClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64, lookup: guardedLookup(options.allow), ...(options.ca ? { ca: options.ca } : {}) });
  const context = { agent, allow: options.allow, timeoutMs };

  return {
    post(url, headers, body, signal) {
      const init = { method: 'POST', headers: { 'user-agent': 'richpush-webhooks/1', ...headers, 'content-length': String(Buffer.byteLength(body)) }, body };
      return guardedRequest<OutboundResponse>(context, url, init, signal, (res, { release, resolve }) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < responseBodyLimit) {
            chunks.push(chunk);
            kept += chunk.length;
          }
          if (kept >= responseBodyLimit) res.destroy();
        });
        const finish = () => {
          release();
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            // Postgres text cannot hold U+0000; a receiver's stray NUL must not break the delivery log.
            body: Buffer.concat(chunks).subarray(0, responseBodyLimit).toString('utf8').replaceAll('\u0000', '\uFFFD'),
          });
        };
        res.once('end', finish);
        res.once('close', finish);
        res.once('error', finish);
      });
    },
    download(url, signal) {
      const init = { method: 'GET', headers: { 'user-agent': 'richpush-recordings/1', accept: 'audio/*, application/octet-stream;q=0.9, */*;q=0.5' } };
      return guardedRequest<OutboundDownload>(context, url, init, signal, (res, { answered, release, resolve }) => {
        // The headers are in: the caller's signal bounds the body from here, until it is read or destroyed.
        answered();
        res.once('close', release);
        const length = Number(res.headers['content-length']);
        resolve({ status: res.statusCode ?? 0, contentLength: Number.isSafeInteger(length) && length >= 0 ? length : undefined, body: res });
      });
    },
    close: () => agent.destroy(),
  };
}

interface RequestGuard<T> {
  /** The answer's headers are in: the client's timeout no longer applies (the caller's signal still does). */
  answered: () => void;
  /** The request is over: its timer and abort listener go. */
  release: () => void;
  resolve: (value: T) => void;
}

/**
 * One request to a customer's URL: a literal address the policy blocks is refused before anything is sent (a name's
 * answers are checked by the agent's lookup), the client's timeout and the caller's signal destroy it, and a failure
 * before an answer is an OutboundRequestError that says why. `onResponse` reads the answer and settles it. One timer
 * and one abort listener per request, released when it ends: AbortSignal.timeout and AbortSignal.any would keep every
 * request's signals alive for the whole timeout, thousands a second.
 */
function guardedRequest<T>(
  context: { agent: Agent; allow: AllowList; timeoutMs: number },
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  signal: AbortSignal | undefined,
  onResponse: (res: IncomingMessage, guard: RequestGuard<T>) => void,
): Promise<T> {
  const target = new URL(url);
  const host = normaliseHost(target.hostname);
  if (host.kind === 'ip') {
    const reason = blockedReason(host.address, context.allow);
    if (reason) return Promise.reject(new OutboundRequestError(`blocked address: ${reason}`, { blocked: true }));
  }
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const answered = () => clearTimeout(timer);
    const release = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const req = request(target, { method: init.method, agent: context.agent, headers: init.headers }, (res) => onResponse(res, { answered, release, resolve }));
    const onAbort = () => req.destroy(new Error('aborted'));
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timed out'));
    }, context.timeoutMs);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    req.once('error', (error: NodeJS.ErrnoException) => {
      release();
      const reason = signal?.aborted
        ? abortReason(signal)
        : timedOut
          ? `timed out after ${context.timeoutMs} ms`
          : error.code === 'ERR_BLOCKED_ADDRESS'
            ? error.message
            : `${error.code ?? error.name}: ${error.message}`;
      reject(new OutboundRequestError(reason, { sent: req.writableFinished, blocked: error.code === 'ERR_BLOCKED_ADDRESS' }));
    });
    req.end(init.body);
  });
}

/** A caller that gives up after a time of its own aborts with a `TimeoutError`, whose message says which. */
function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') return `timed out: ${reason.message}`;
  return 'aborted: the attempt was cancelled (worker shutting down or run cancelled)';
}
