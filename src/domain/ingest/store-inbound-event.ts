import type { EntityManager } from '@mikro-orm/postgresql';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import type { InboundEnvelope } from './normalise/envelope.ts';

/** An event the ingest endpoint accepted, with everything its run needs to write its row again if it must. */
export interface AcceptedEvent {
  eventId: string;
  accountId: string;
  connectionId: string;
  workflowId: string;
  event: InboundEnvelope;
}

/** Inserts the event row unless (connection, messageId) already has one; the first writer wins. */
export async function storeInboundEvent(em: EntityManager, accepted: AcceptedEvent): Promise<void> {
  const { event } = accepted;
  await em
    .createQueryBuilder(InboundEvent)
    .insert({
      id: accepted.eventId,
      accountId: accepted.accountId,
      connectionId: accepted.connectionId,
      messageId: event.messageId,
      eventType: event.eventType,
      occurredAt: new Date(event.occurredAt),
      clientUserId: event.clientUserId ?? null,
      attributes: event.attributes ?? null,
      endpoints: event.endpoints ?? null,
      raw: event.raw ?? null,
      status: 'RECEIVED',
      workflowId: accepted.workflowId,
      // Written by the event's own run (a run started before the outbox, whose row was never committed): the run
      // already exists, so the relay must not start another.
      workflowStartedAt: new Date(),
      createdAt: new Date(),
    })
    .onConflict(['connectionId', 'messageId'])
    .ignore()
    .execute();
}
