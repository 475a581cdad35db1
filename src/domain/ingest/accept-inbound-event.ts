import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Connection } from '../../persistence/entities/connection.ts';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { newId } from '../../security/ids.ts';
import { AccountId, ClientUserId, EntityId, EntityType, EventType } from '../../temporal/search-attributes.ts';
import { ingestWorkflowId } from '../../temporal/workflow-ids.ts';
import type { IngestInput } from '../../../workflows/ingest-event.ts';
import type { InboundEnvelope } from './normalise/envelope.ts';
import { storeInboundEvent, type AcceptedEvent } from './store-inbound-event.ts';

export interface AcceptResult {
  messageId: string;
  eventId: string;
  duplicate: boolean;
}

/**
 * Stores one event and starts its run, exactly once per (connection, messageId):
 * - in one transaction, the row is inserted (or found) and locked, so two concurrent posts of one message queue up;
 * - a row whose run has started is a duplicate (409);
 * - otherwise the run is started (its id makes a second run impossible) and the row marked started.
 * If Temporal is unreachable the transaction rolls back and the caller gets 503: a retry starts from scratch and is
 * accepted, not refused as a duplicate.
 */
export async function acceptInboundEvent(
  deps: { em: EntityManager; temporal: { client: Client; taskQueue: string } },
  connection: Connection,
  event: InboundEnvelope,
): Promise<AcceptResult> {
  return deps.em.transactional(async (tx) => {
    const workflowId = ingestWorkflowId(connection.id, event.messageId);
    const candidate: AcceptedEvent = { eventId: newId('iev_'), accountId: connection.accountId, connectionId: connection.id, workflowId, event };
    await storeInboundEvent(tx, candidate);
    const row = await tx.findOneOrFail(InboundEvent, { connectionId: connection.id, messageId: event.messageId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const result = { messageId: event.messageId, eventId: row.id };
    if (row.workflowStartedAt) return { ...result, duplicate: true };

    await startIngestRun(deps.temporal, { accepted: { ...candidate, eventId: row.id }, config: connection.eventConfig }, connection);
    row.workflowStartedAt = new Date();
    await tx.flush();
    return { ...result, duplicate: false };
  });
}

async function startIngestRun(temporal: { client: Client; taskQueue: string }, input: IngestInput, connection: Connection): Promise<void> {
  const { accepted } = input;
  try {
    await temporal.client.workflow.start('ingestEvent', {
      taskQueue: temporal.taskQueue,
      workflowId: accepted.workflowId,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      args: [input],
      typedSearchAttributes: [
        { key: AccountId, value: accepted.accountId },
        { key: EntityType, value: 'event' },
        { key: EntityId, value: accepted.eventId },
        { key: EventType, value: accepted.event.eventType },
        ...(accepted.event.clientUserId ? [{ key: ClientUserId, value: accepted.event.clientUserId }] : []),
      ],
      staticSummary: `${accepted.event.eventType} from ${connection.label} (${connection.provider})`,
    });
  } catch (error) {
    // Started by an earlier try whose transaction did not commit: the run exists, which is all that matters.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
