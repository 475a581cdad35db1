import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../security/ids.ts';
import { ingestWorkflowId } from '../../../workflows/ingest-event.contract.ts';
import type { InboundEnvelope } from './normalise/envelope.ts';

export interface AcceptResult {
  messageId: string;
  eventId: string;
  duplicate: boolean;
}


/**
 * One statement, one round trip: insert the RECEIVED row unless (connection, messageId) has one. The unique key
 * decides exactly-once: a concurrent insert of the same message waits for the first to commit and then inserts
 * nothing. No NOTIFY here: the caller wakes the relay once the row is committed (docs/adr/0035-the-api-wakes-the-ingest-relays-after-the-commit.md).
 */
const acceptSql = `insert into inbound_events (id, account_id, connection_id, message_id, event_type, occurred_at, client_user_id,
    attributes, endpoints, raw, status, workflow_id, task_queue, created_at)
  values (?, ?, ?, ?, ?, ?::timestamptz, ?, ?::jsonb, ?::jsonb, ?::jsonb, 'RECEIVED', ?, ?, clock_timestamp())
  on conflict (connection_id, message_id) do nothing
  returning id`;

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/**
 * Accepts one event into the ingest outbox, exactly once per (connection, messageId): the first insert wins and
 * answers 202 once it has committed; every later post of the message answers 409 with the first eventId. Temporal is
 * not called: a relay of `deps.taskQueue` claims the row and starts its processing (src/outbox/ingest-batches.ts), so acceptance neither
 * waits on nor fails with the Temporal server.
 */
export async function acceptInboundEvent(
  deps: { em: EntityManager; taskQueue: string },
  connection: { id: string; accountId: string },
  event: InboundEnvelope,
): Promise<AcceptResult> {
  const eventId = newId('iev_');
  const inserted = await deps.em.execute<Array<{ id: string }>>(acceptSql, [
    eventId,
    connection.accountId,
    connection.id,
    event.messageId,
    event.eventType,
    event.occurredAt,
    event.clientUserId ?? null,
    json(event.attributes),
    json(event.endpoints),
    json(event.raw),
    ingestWorkflowId(connection.id, event.messageId),
    deps.taskQueue,
  ]);
  if (inserted.length > 0) return { messageId: event.messageId, eventId, duplicate: false };
  const [existing] = await deps.em.execute<Array<{ id: string }>>(
    'select id from inbound_events where connection_id = ? and message_id = ?',
    [connection.id, event.messageId],
  );
  return { messageId: event.messageId, eventId: existing!.id, duplicate: true };
}
