import type { FakeFcm } from '../../src/dev/fake-fcm.ts';
import { query } from '../support/db.ts';
import type { TestReceiver } from '../support/receiver.ts';

/** What each webhook-id's repeats were, against the attempts the service recorded for its delivery. */
export interface WebhookRepeats {
  /** Requests beyond the first for a webhook-id. */
  repeats: number;
  /** Of those, the ones that followed an attempt the service recorded as not delivered (a timeout, an error): a retry it knew of. */
  afterFailedAttempt: number;
  /** Of those, sends after an attempt recorded as delivered: avoidable, so a fault of the service. */
  afterRecordedDelivery: number;
  /** A few repeated webhook-ids with their requests' times and their delivery's attempts, to say why. */
  samples: Array<{ webhookId: string; requests: number[]; attempts: string[] }>;
}

/** The receiver's requests by webhook-id (the outbound event's id), compared with `delivery_attempts`. */
export async function webhookRepeats(receiver: TestReceiver): Promise<WebhookRepeats> {
  const byId = new Map<string, number[]>();
  for (const request of receiver.requests) {
    const id = String(request.headers['webhook-id']);
    byId.set(id, [...(byId.get(id) ?? []), request.receivedAt]);
  }
  const repeated = [...byId].filter(([, times]) => times.length > 1);
  if (repeated.length === 0) return { repeats: 0, afterFailedAttempt: 0, afterRecordedDelivery: 0, samples: [] };
  const rows = await query<{ event_id: string; attempts: string[] }>(
    `select d.event_id, coalesce(array_agg(a.attempt_number || ':' || a.outcome || '@' || to_char(a.started_at, 'HH24:MI:SS.MS') || ' ' || coalesce(d.workflow_id, '-')
              order by a.attempt_number) filter (where a.id is not null), '{}') as attempts
       from deliveries d left join delivery_attempts a on a.delivery_id = d.id where d.event_id = any($1) group by d.event_id`,
    [repeated.map(([id]) => id)],
  );
  const attemptsOf = new Map(rows.map((row) => [row.event_id, row.attempts]));
  let repeats = 0;
  let afterFailedAttempt = 0;
  let afterRecordedDelivery = 0;
  for (const [id, times] of repeated) {
    repeats += times.length - 1;
    const attempts = attemptsOf.get(id) ?? [];
    const delivered = attempts.filter((attempt) => attempt.includes(':delivered@')).length;
    afterFailedAttempt += Math.min(times.length - 1, attempts.length - delivered);
    afterRecordedDelivery += Math.max(0, delivered - 1);
  }
  const samples = repeated.slice(0, 5).map(([webhookId, requests]) => ({ webhookId, requests, attempts: attemptsOf.get(webhookId) ?? [] }));
  return { repeats, afterFailedAttempt, afterRecordedDelivery, samples };
}

/** Pushes the fake FCM accepted: devices with one, and accepts beyond the first for a device. */
export const pushFigures = (fake: FakeFcm) => ({ pushed: fake.acceptedTokens().size, duplicates: fake.duplicates() });

/** The account's inbound events that reached PROCESSED. */
export async function processedEvents(accountId: string): Promise<number> {
  const [row] = await query<{ n: number }>(`select count(*)::int as n from inbound_events where account_id = $1 and status = 'PROCESSED'`, [accountId]);
  return row?.n ?? 0;
}
