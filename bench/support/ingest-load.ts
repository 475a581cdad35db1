import { buildWebhookHeaders } from '../../src/security/standard-webhooks.ts';
import type { LoadRequest } from './http-load.ts';

/** Where signed events go: an inbound connection's key and signing secret on an origin. */
export interface IngestTarget {
  origin: string;
  inboundKey: string;
  secret: string;
}

/** High enough that the limiter is consulted on every post (one round trip to Postgres) but never refuses. */
export const unlimitedIngest = { perSecond: 1_000_000, burst: 1_000_000 };

/** clientUserIds are drawn from this many people. */
const USERS = 1000;

/**
 * Request builder for `driveLoad`: a fresh direct envelope per call to `POST /v1/in/{inboundKey}`, signed at the moment
 * it is built (fresh timestamp per request), its messageId `msg-<runTag>-<phase>-<index>` (the request's tag).
 */
export const signedEnvelopes =
  (runTag: string, phase: string, target: IngestTarget) =>
  (index: number): LoadRequest => {
    const messageId = `msg-${runTag}-${phase}-${index}`;
    const body = JSON.stringify({
      version: '1',
      messageId,
      occurredAt: new Date().toISOString(),
      eventType: 'order.completed',
      clientUserId: `user-${Math.floor(Math.random() * USERS)}`,
      attributes: { orderId: `ord-${index}`, total: Math.round(Math.random() * 50_000) / 100, currency: 'EUR', items: 1 + (index % 5), channel: 'web' },
    });
    const headers = buildWebhookHeaders({ id: messageId, timestamp: Math.floor(Date.now() / 1000), body, secrets: [target.secret] });
    return { path: `/v1/in/${target.inboundKey}`, headers, body, tag: messageId };
  };
