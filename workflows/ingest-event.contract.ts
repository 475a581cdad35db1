import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { InboundEnvelope } from '../src/domain/ingest/normalise/envelope.ts';
import { AccountId, ClientUserId, EntityId, EntityType, EventType } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of the run of one accepted inbound event, `ingest:<connectionId>:<messageId>`: it links the event
 * to its person (or holds it until that person is linked) and routes it.
 */
export const ingestEventWorkflowType = 'ingestEvent';

/** An event the ingest endpoint accepted, as its run needs it. */
export interface AcceptedEvent {
  eventId: string;
  accountId: string;
  connectionId: string;
  workflowId: string;
  event: InboundEnvelope;
}

/** The connection's event settings when the event was accepted: which types it takes, whether it creates visitors, how long it holds. */
export interface EventConfig {
  eventTypes?: string[] | undefined;
  createVisitors: boolean;
  holdTtlHours: number;
  rateLimit?: { perSecond: number; burst: number } | undefined;
}

export interface IngestEventInput {
  version: 1;
  accepted: AcceptedEvent;
  config: EventConfig;
}

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
