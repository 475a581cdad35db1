/**
 * A local fake of Firebase Cloud Messaging's HTTP v1 API and of Google's OAuth2 token endpoint, on one HTTPS server
 * (HTTP/1.1 keep-alive and HTTP/2), for black-box tests and benchmarks. It speaks the protocol the FCM push provider
 * (src/outbound/push/fcm-provider.ts) speaks:
 *
 * - `POST /token`, a JWT-bearer grant as a form → an access token `ya29.fake-<n>` (the service account's token_uri);
 * - `POST /v1/projects/{projectId}/messages:send` with `authorization: Bearer <issued token>` → 200 with a message
 *   name, or what the test scripts; errors in FCM's shape.
 *
 * It keeps counters, not bodies (unless asked): a benchmark pushes up to a million sends through it. Two control
 * routes serve a fake run in another process: `GET /_stats` (FakeFcmStats as JSON) and `POST /_reset`.
 */
import { verify } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { FcmMessage } from '../outbound/push/fcm-message.ts';
import { AcceptTally } from './fake-fcm-tally.ts';

export interface FakeFcmOptions {
  /** PEM certificate and key the server presents; the provider's FCM_BASE_URL and token_uri must be https. */
  cert: string;
  key: string;
  /** 127.0.0.1 by default. */
  host?: string;
  /** 0 (any free port) by default. */
  port?: number;
  /** The project sends are accepted for ('richpush-test', as test/support/fcm.ts writes it); another gets 403. */
  projectId?: string;
  /** Keep every send that reached the answer step, parsed, for `bodies()`. Off by default: a benchmark sends 1M. */
  keepBodies?: boolean;
  /** When given, a token request is granted only for a JWT this PEM public key verifies (RS256). */
  publicKey?: string;
  /** Scripts the answer to each send; `undefined` means 200 with a message name. Replace it with `answer(fn)`. */
  answer?: FakeFcmScript;
  /** Delays the answer to every well-formed send by this much (a slow FCM); a scripted reply's own `delayMs` wins. Refusals (401, 403, 400) are immediate. */
  delayMs?: number;
}

/** What the service sent, as far as the fake checked it: `token` is there, the rest is as it came. */
export type FakeFcmMessage = Partial<FcmMessage> & { token: string };

export interface FakeFcmSend {
  token: string;
  /** 0 for the first send that reached the answer step (authorized, for the project, with a token), and so on. */
  index: number;
  /** When its body was in (epoch ms, fractional). */
  receivedAt: number;
  message: FakeFcmMessage;
}

export interface FakeFcmReply {
  status: number;
  /** Merged over `content-type: application/json`. */
  headers?: Record<string, string>;
  /** A 2xx without a body gets FCM's `{"name": "projects/<id>/messages/<n>"}`; any other status an empty one. */
  body?: string;
  delayMs?: number;
}

export type FakeFcmScript = (send: FakeFcmSend) => FakeFcmReply | undefined;

export interface FakeFcmStats {
  /** Sends answered 2xx (the only ones that count as delivered). */
  accepted: number;
  /** Every POST to a messages:send path, whatever the answer. */
  received: number;
  duplicates: number;
  distinctTokens: number;
  tokenRequests: number;
  firstAcceptAt: number | undefined;
  lastAcceptAt: number | undefined;
  maxPerSecond: number;
  maxPerMinute: number;
}

export interface FakeFcm {
  /** https://<host>:<port>, for FCM_BASE_URL. */
  baseUrl: string;
  /** `${baseUrl}/token`, for the service account's token_uri. */
  tokenUri: string;
  accepted(): number;
  received(): number;
  /** 2xx answers for one device token. */
  countFor(token: string): number;
  /** Accepts beyond the first for the same token, summed over tokens. */
  duplicates(): number;
  /** A fresh set of the tokens accepted at least once. */
  acceptedTokens(): Set<string>;
  /** Every send that reached the answer step, in arrival order; empty unless `keepBodies`. */
  bodies(): FakeFcmSend[];
  /** The arrival times (epoch ms) of the accepted sends, in the order accepted. A copy. */
  acceptTimes(): Float64Array;
  /** The most accepted sends that arrived within any half-open window of `windowMs`. */
  maxInWindow(windowMs: number): number;
  firstAcceptAt(): number | undefined;
  lastAcceptAt(): number | undefined;
  tokenRequests(): number;
  stats(): FakeFcmStats;
  /** Replaces the scripted answer (`undefined`: 200 for every send). */
  answer(script: FakeFcmScript | undefined): void;
  /** Resolves as soon as `count` sends were accepted; rejects after `timeoutMs` (30 s by default) saying how many were. */
  waitForAccepted(count: number, timeoutMs?: number): Promise<void>;
  /** Forgets what was counted and kept; issued access tokens stay valid. */
  reset(): void;
  close(): Promise<void>;
}

// FCM's and Google's answers. The texts are theirs in substance: the service logs them and classifies by status and
// errorCode (src/outbound/push/fcm-message.ts, classifyFcmAnswer).

const jsonHeaders: OutgoingHttpHeaders = { 'content-type': 'application/json; charset=UTF-8' };

/** An answer in FCM's error shape; `errorCode` goes into an FcmError detail, as FCM sends it. */
export function fcmErrorReply(status: number, code: string, message: string, errorCode?: string): FakeFcmReply {
  const details = errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] : [];
  return { status, body: JSON.stringify({ error: { code: status, message, status: code, details } }) };
}

/** The token is no longer valid (the app was uninstalled): the service unsubscribes the device. */
export const unregistered = (): FakeFcmReply => fcmErrorReply(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED');

/** The project's sending quota is used up: the service retries, after `retryAfterSeconds` when given. */
export function quotaExceeded(retryAfterSeconds?: number): FakeFcmReply {
  const reply = fcmErrorReply(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for quota metric of service fcm.googleapis.com.', 'QUOTA_EXCEEDED');
  return retryAfterSeconds === undefined ? reply : { ...reply, headers: { 'retry-after': String(retryAfterSeconds) } };
}

/** FCM is overloaded: the service retries. */
export const unavailable = (): FakeFcmReply => fcmErrorReply(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'UNAVAILABLE');

const unauthenticated = fcmErrorReply(
  401,
  'UNAUTHENTICATED',
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
);
const invalidJson = fcmErrorReply(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
const noTarget = fcmErrorReply(400, 'INVALID_ARGUMENT', 'The message has no target: one of token, topic or condition is required.', 'INVALID_ARGUMENT');
/**
 * Google answers a project that does not exist, or that the caller may not send for, with one 403 (AIP-211: an
 * answer must not tell which). A 404 here would read as UNREGISTERED to the service and unsubscribe the device.
 */
const notPermitted = (project: string) =>
  fcmErrorReply(403, 'PERMISSION_DENIED', `Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/${project}' (or it may not exist).`);
const grantError = (error: string, description: string): FakeFcmReply => ({ status: 400, body: JSON.stringify({ error, error_description: description }) });

const jwtBearer = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const sendPrefix = '/v1/projects/';
const sendSuffix = '/messages:send';
const now = () => performance.timeOrigin + performance.now();

/** Why a grant's assertion is refused, or undefined: a three-part RS256 JWT, signed by `publicKey` when one is set. */
function assertionProblem(assertion: string, publicKey: string | undefined): string | undefined {
  const parts = assertion.split('.');
  if (parts.length !== 3 || parts.some((part) => part === '')) return 'Invalid JWT: the assertion is not a signed JWT.';
  const [header, payload, signature] = parts as [string, string, string];
  try {
    if ((JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: unknown } | null)?.alg !== 'RS256') return 'Invalid JWT: the algorithm is not RS256.';
  } catch {
    return 'Invalid JWT: the header is not JSON.';
  }
  if (publicKey && !verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))) return 'Invalid JWT Signature.';
  return undefined;
}

/** The `message` of a send body, when it has a token; otherwise the error answer. */
function messageOf(body: string): FakeFcmMessage | FakeFcmReply {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return invalidJson;
  }
  const message = (parsed as { message?: unknown } | null)?.message;
  const token = (message as { token?: unknown } | null | undefined)?.token;
  return typeof token === 'string' && token !== '' ? (message as FakeFcmMessage) : noTarget;
}

// HTTP/1.1 requests come as IncomingMessage/ServerResponse, HTTP/2 ones as the compatibility objects; the fake uses
// only what both have (url, method, headers, setEncoding, data/end/close events, writeHead, end).
type Request = Http2ServerRequest;
type Response = Http2ServerResponse;

function readBody(request: Request, done: (body: string) => void): void {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => (body += chunk));
  request.on('end', () => done(body));
}

function write(response: Response, reply: FakeFcmReply, defaultBody = ''): void {
  const body = reply.body ?? defaultBody;
  // A length, not chunked encoding: writeHead fixes the framing before end() could measure the body.
  response.writeHead(reply.status, { ...jsonHeaders, ...reply.headers, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

export async function startFakeFcm(options: FakeFcmOptions): Promise<FakeFcm> {
  const projectId = options.projectId ?? 'richpush-test';
  const namePrefix = JSON.stringify(`projects/${projectId}/messages/`).slice(0, -1);
  const tally = new AcceptTally();
  const issued = new Set<string>();
  const kept: FakeFcmSend[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let script = options.answer;
  let received = 0;
  let sends = 0;
  let tokenRequests = 0;

  function grant(body: string, response: Response): void {
    tokenRequests += 1;
    const form = new URLSearchParams(body);
    const grantType = form.get('grant_type') ?? '';
    // Google's words: a grant type it does not take is unsupported_grant_type, a bad assertion invalid_grant.
    if (grantType !== jwtBearer) return write(response, grantError('unsupported_grant_type', `Invalid grant_type: ${grantType}`));
    const problem = assertionProblem(form.get('assertion') ?? '', options.publicKey);
    if (problem) return write(response, grantError('invalid_grant', problem));
    const token = `ya29.fake-${issued.size + 1}`;
    issued.add(token);
    write(response, { status: 200, body: JSON.stringify({ access_token: token, expires_in: 3600, token_type: 'Bearer' }) });
  }

  function send(path: string, headers: IncomingHttpHeaders, body: string, response: Response): void {
    received += 1;
    const authorization = headers.authorization;
    if (!authorization?.startsWith('Bearer ') || !issued.has(authorization.slice(7))) return write(response, unauthenticated);
    const project = path.slice(sendPrefix.length, -sendSuffix.length);
    if (project !== projectId) return write(response, notPermitted(project));
    const message = messageOf(body);
    if ('status' in message) return write(response, message);

    const arrival: FakeFcmSend = { token: message.token, index: sends++, receivedAt: now(), message };
    if (options.keepBodies) kept.push(arrival);
    const reply = script?.(arrival) ?? { status: 200 };
    const accepted = reply.status >= 200 && reply.status < 300;
    const defaultBody = accepted ? `{"name":${namePrefix}${arrival.index}"}` : '';
    const delayMs = reply.delayMs ?? options.delayMs ?? 0;
    if (delayMs <= 0) {
      if (accepted) tally.record(arrival.token, arrival.receivedAt);
      return write(response, reply, defaultBody);
    }
    // A sender that gave up before the answer (timed out, aborted, crashed) never learned it was accepted.
    let gone = false;
    response.once('close', () => (gone = true));
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (gone) return;
      if (accepted) tally.record(arrival.token, arrival.receivedAt);
      write(response, reply, defaultBody);
    }, delayMs);
    timers.add(timer);
  }

  const stats = (): FakeFcmStats => ({
    accepted: tally.accepted,
    received,
    duplicates: tally.duplicates,
    distinctTokens: tally.distinctTokens,
    tokenRequests,
    firstAcceptAt: tally.firstAt,
    lastAcceptAt: tally.lastAt,
    maxPerSecond: tally.maxInWindow(1000),
    maxPerMinute: tally.maxInWindow(60_000),
  });

  function reset(): void {
    tally.reset();
    kept.length = 0;
    received = 0;
    sends = 0;
    tokenRequests = 0;
  }

  // Google's front ends keep an idle connection for minutes. Node's 5 s default would close it under a sender that
  // paused between batches just as it reuses it, failing that send with "socket hang up".
  const http1Options = { keepAliveTimeout: 600_000 };
  const server = createSecureServer({ cert: options.cert, key: options.key, allowHTTP1: true, http1Options }, (request, response) => {
    const { method, url } = request;
    if (method === 'POST' && url.startsWith(sendPrefix) && url.endsWith(sendSuffix)) {
      readBody(request, (body) => send(url, request.headers, body, response));
    } else if (method === 'POST' && url === '/token') {
      readBody(request, (body) => grant(body, response));
    } else if (method === 'GET' && url === '/_stats') {
      write(response, { status: 200, body: JSON.stringify(stats()) });
    } else if (method === 'POST' && url === '/_reset') {
      reset();
      write(response, { status: 204 });
    } else {
      write(response, fcmErrorReply(404, 'NOT_FOUND', `No route for ${method} ${url}.`));
    }
  });

  // HTTP/1.1 keep-alive connections and HTTP/2 sessions alike run on these sockets; close() ends them all.
  const sockets = new Set<Socket>();
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const baseUrl = `https://${address.includes(':') ? `[${address}]` : address}:${port}`;

  return {
    baseUrl,
    tokenUri: `${baseUrl}/token`,
    accepted: () => tally.accepted,
    received: () => received,
    countFor: (token) => tally.countFor(token),
    duplicates: () => tally.duplicates,
    acceptedTokens: () => tally.tokens(),
    bodies: () => [...kept],
    acceptTimes: () => tally.times(),
    maxInWindow: (windowMs) => tally.maxInWindow(windowMs),
    firstAcceptAt: () => tally.firstAt,
    lastAcceptAt: () => tally.lastAt,
    tokenRequests: () => tokenRequests,
    stats,
    answer: (next) => (script = next),
    waitForAccepted: (count, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          cancel();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${count} sends accepted by the fake FCM; ${tally.accepted} accepted of ${received} received`));
        }, timeoutMs);
        const cancel = tally.whenAccepted(count, () => {
          clearTimeout(timer);
          resolve();
        });
      }),
    reset,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
