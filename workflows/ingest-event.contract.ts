import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { AcceptedEvent } from '../src/domain/ingest/store-inbound-event.ts';
import type { EventConfig } from '../src/persistence/entities/connection.ts';
import { AccountId, ClientUserId, EntityId, EntityType, EventType } from '../src/temporal/search-attributes.ts';
import type { TemporalAccess } from '../src/temporal/temporal-access.ts';

/**
 * The contract of the run of one accepted inbound event, `ingest:<connectionId>:<messageId>`: it links the event
 * to its person (or holds it until that person is linked) and routes it.
 */
export const ingestEventWorkflowType = 'ingestEvent';

export interface IngestEventInputV1 {
  version: 1;
  accepted: AcceptedEvent;
  config: EventConfig;
}
export type IngestEventInput = IngestEventInputV1;

export interface IngestState {
  status: 'RECEIVED' | 'HELD' | 'PROCESSED' | 'IGNORED' | 'EXPIRED' | 'FAILED';
  visitorId: string | null;
  reason?: string;
}

export type IngestEventWorkflow = (input: IngestEventInput) => Promise<IngestState>;

export const ingestState = defineQuery<IngestState>('state');
/** Releases a held event: its person has been linked to this visitor. */
export const visitorLinked = defineSignal<[{ visitorId: string }]>('visitorLinked');

/** The id makes a second run for the same message impossible. */
export const ingestWorkflowId = (connectionId: string, messageId: string) => `ingest:${connectionId}:${messageId}`;

export const ingestSearchAttributes = (accepted: AcceptedEvent) => [
  { key: AccountId, value: accepted.accountId },
  { key: EntityType, value: 'event' },
  { key: EntityId, value: accepted.eventId },
  { key: EventType, value: accepted.event.eventType },
  ...(accepted.event.clientUserId ? [{ key: ClientUserId, value: accepted.event.clientUserId }] : []),
];

/**
 * Starts the event's run; false when it already exists (another request, or an earlier try, started it).
 * `source` names where the event came from, for the run's summary.
 */
export async function startIngestRun(temporal: TemporalAccess, input: IngestEventInput, source: string): Promise<boolean> {
  const { accepted } = input;
  try {
    await temporal.client.workflow.start<IngestEventWorkflow>(ingestEventWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: accepted.workflowId,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: ingestSearchAttributes(accepted),
      staticSummary: `${accepted.event.eventType} from ${source}`,
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}
