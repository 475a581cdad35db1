import type { RateLimit } from '../../persistence/rate-limiter.ts';
import { verifyWebhook, type WebhookVerifyFailure } from '../../security/standard-webhooks.ts';
import { noteConnectionTraffic } from '../connections/note-traffic.ts';
import { DomainError, validationFailed } from '../errors.ts';
import { allowanceOf, rateLimited } from '../rate-limit-answer.ts';
import { acceptInboundEvent, type AcceptResult } from './accept-inbound-event.ts';
import { signingSecretsAt } from './inbound-connections.ts';
import type { IngestDeps } from './ingest-deps.ts';
import { normalise } from './normalise/index.ts';
import type { Provider } from './normalise/envelope.ts';

export interface SignedPost {
  inboundKey: string;
  /** Reads the body's bytes, refusing one over the limit (413); called only once the connection is known. */
  readBody: () => Promise<Buffer>;
  /**
   * Parses the verified bytes as the HTTP edge parses every body (400: not JSON, or text that cannot be stored);
   * called only once the signature and the rate limit passed.
   */
  parseBody: (raw: Buffer) => unknown;
  headers: { id?: string | undefined; timestamp?: string | undefined; signature?: string | undefined };
}

export type IngestResult = { kind: 'single'; result: AcceptResult } | { kind: 'batch'; results: AcceptResult[] };

const signatureErrors: Record<WebhookVerifyFailure, DomainError> = {
  missing_headers: new DomainError('invalid_signature', 'The webhook-id, webhook-timestamp and webhook-signature headers are required'),
  invalid_timestamp: new DomainError('invalid_signature', 'webhook-timestamp must be Unix seconds'),
  invalid_signature: new DomainError('invalid_signature', 'No signature in webhook-signature matches this body and the connection’s secret'),
  timestamp_out_of_window: new DomainError('timestamp_out_of_window', 'webhook-timestamp is more than 5 minutes from now; sign the request again'),
};

/**
 * `POST /v1/in/{inboundKey}`, in the order its answers are decided: the connection (404, or 403 when paused), the
 * signature over the raw bytes (401), the connection's rate limit (429), the body (400: not JSON, text that cannot
 * be stored, or not an event), then each event is committed to the ingest outbox (202), unless its messageId was
 * already accepted (409). Nothing here calls Temporal: the relay starts the processing after the commit.
 */
export async function ingestPost(deps: IngestDeps, post: SignedPost, now = new Date()): Promise<IngestResult> {
  // Read through this instance's short-lived cache (docs/adr/0033-ingest-reads-postgres-once-per-request.md): a change made elsewhere shows within a second.
  const connection = await deps.connections.find(deps.em, post.inboundKey);
  if (!connection) throw new DomainError('not_found', 'Unknown inbound key');
  if (connection.status === 'paused') throw new DomainError('connection_paused', 'This connection is paused; its events are refused');
  const raw = await post.readBody();

  const secrets = signingSecretsAt(connection, now);
  const verdict = verifyWebhook({ headers: post.headers, body: raw, secrets, now: Math.floor(now.getTime() / 1000) });
  if (!verdict.ok) throw signatureErrors[verdict.reason];

  // One point before the body is parsed (so a flood is refused cheaply), the rest of a batch's events after.
  const limit = connection.eventConfig.rateLimit ?? deps.defaultRateLimit;
  await consumeOrRefuse(deps, connection.id, limit, 1);

  const body = post.parseBody(raw);
  const normalised = normalise(connection.provider as Provider, body, connection.mapping, { now });
  if (!normalised.ok) throw validationFailed(normalised.details);
  if (normalised.events.length > 1) await consumeOrRefuse(deps, connection.id, limit, normalised.events.length - 1);

  const results: AcceptResult[] = [];
  for (const event of normalised.events) results.push(await acceptInboundEvent({ em: deps.em, taskQueue: deps.temporal.taskQueue }, connection, event));
  if (results.some((result) => !result.duplicate)) deps.wakeRelay();
  if (shouldNoteTraffic(connection.id, now)) await noteConnectionTraffic(deps.em, connection.id, 'inbound', now);

  const batch = typeof body === 'object' && body !== null && Array.isArray((body as { batch?: unknown }).batch);
  return batch ? { kind: 'batch', results } : { kind: 'single', result: results[0]! };
}

/**
 * lastInboundAt moves at most once a second (noteConnectionTraffic); this process skips the round trip altogether
 * when it moved it less than a second ago, so a busy connection costs one UPDATE a second per API instance.
 */
const lastNoted = new Map<string, number>();
function shouldNoteTraffic(connectionId: string, now: Date): boolean {
  const last = lastNoted.get(connectionId);
  if (last !== undefined && now.getTime() - last < 1000) return false;
  if (lastNoted.size > 10_000) lastNoted.clear();
  lastNoted.set(connectionId, now.getTime());
  return true;
}

async function consumeOrRefuse(deps: IngestDeps, key: string, limit: RateLimit, points: number): Promise<void> {
  const decision = await deps.rateLimiter.consume(key, limit, points);
  if (!decision.allowed) throw rateLimited(`Too many events for this connection (${allowanceOf(limit)}); retry after ${decision.retryAfterSeconds} s`, limit, decision);
}
