import type { EntityManager } from '@mikro-orm/postgresql';
import type { Connection } from '../../persistence/entities/connection.ts';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { newId } from '../../security/ids.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { ingestWorkflowId, startIngestRun } from '../../../workflows/ingest-event.contract.ts';
import type { InboundEnvelope } from './normalise/envelope.ts';
import { storeInboundEvent, type AcceptedEvent } from './store-inbound-event.ts';

export interface AcceptResult {
  messageId: string;
  eventId: string;
  duplicate: boolean;
}

/**
 * Stores one event and starts its run, exactly once per (connection, messageId):
 * - the row is inserted unless one exists (a unique key per connection and messageId);
 * - the run `ingest:<connectionId>:<messageId>` is started with REJECT_DUPLICATE, so only one start can succeed:
 *   the request whose start succeeded answers 202, every other one 409 (also when the row says it started);
 * - no transaction spans the Temporal call, so a slow start never holds a database connection or a lock.
 * If Temporal is unreachable the start fails, the row is removed again and the caller gets 503; the client's retry
 * is accepted, not refused as a duplicate.
 */
export async function acceptInboundEvent(
  deps: { em: EntityManager; temporal: TemporalAccess },
  connection: Connection,
  event: InboundEnvelope,
): Promise<AcceptResult> {
  const workflowId = ingestWorkflowId(connection.id, event.messageId);
  const candidate: AcceptedEvent = { eventId: newId('iev_'), accountId: connection.accountId, connectionId: connection.id, workflowId, event };
  await storeInboundEvent(deps.em, candidate);
  const row = await deps.em.findOneOrFail(
    InboundEvent,
    { connectionId: connection.id, messageId: event.messageId },
    { fields: ['id', 'workflowStartedAt'], disableIdentityMap: true },
  );
  const result = { messageId: event.messageId, eventId: row.id };
  if (row.workflowStartedAt) return { ...result, duplicate: true };

  let startedNow: boolean;
  try {
    startedNow = await startIngestRun(
      deps.temporal,
      { version: 1, accepted: { ...candidate, eventId: row.id }, config: connection.eventConfig },
      `${connection.label} (${connection.provider})`,
    );
  } catch (error) {
    // Not accepted (the caller answers 503): leave no row behind that looks received. Best effort; a run started
    // meanwhile by another request writes its row again.
    await deps.em.nativeDelete(InboundEvent, { id: row.id, workflowStartedAt: null }).catch(() => undefined);
    throw error;
  }
  if (!startedNow) return { ...result, duplicate: true };
  await deps.em.nativeUpdate(InboundEvent, { id: row.id }, { workflowStartedAt: new Date() });
  return { ...result, duplicate: false };
}
