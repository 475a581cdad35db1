import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import type { EventConfig } from '../../persistence/entities/connection.ts';
import { Visitor } from '../../persistence/entities/visitor.ts';
import { lockPerson } from '../../persistence/person-lock.ts';
import { heldEventsOf, releaseHeldEvents, upsertVisitor } from '../visitors/link-visitor.ts';
import type { AcceptedEvent } from '../../../workflows/ingest-event.contract.ts';

export type LinkOutcome =
  | { outcome: 'linked'; visitorId: string }
  | { outcome: 'anonymous' }
  | { outcome: 'held' }
  | { outcome: 'ignored'; reason: string };

/**
 * The first step of an ingest run, on the event's committed row (the API writes it to the outbox before any run
 * starts), decides what happens to the event:
 * - an eventType outside the connection's `eventTypes` is IGNORED;
 * - no clientUserId: processed anonymously;
 * - a known person, or a new one on a connection that creates visitors: linked (attributes and contacts merged
 *   onto the visitor; events still held for that person are released);
 * - otherwise HELD until someone links that clientUserId. A held event's `workflowId` becomes `accepted.workflowId`,
 *   the id of the run that waits for its person.
 */
export async function linkInboundEvent(
  deps: { em: EntityManager; temporal: { client: Client } },
  accepted: AcceptedEvent,
  config: EventConfig,
): Promise<LinkOutcome> {
  const { event } = accepted;
  if (config.eventTypes && !config.eventTypes.includes(event.eventType)) {
    const reason = `eventType ${event.eventType} is not among the connection's eventTypes`;
    await deps.em.nativeUpdate(InboundEvent, { id: accepted.eventId }, { status: 'IGNORED', statusReason: reason, processedAt: new Date() });
    return { outcome: 'ignored', reason };
  }
  if (!event.clientUserId) return { outcome: 'anonymous' };
  const clientUserId = event.clientUserId;

  const result = await deps.em.transactional(async (tx) => {
    await lockPerson(tx, accepted.accountId, clientUserId);
    const details = { attributes: event.attributes, email: event.endpoints?.email, phone: event.endpoints?.phone };
    const known = await tx.findOne(Visitor, { accountId: accepted.accountId, clientUserId });
    if (!known && !config.createVisitors) {
      await tx.nativeUpdate(
        InboundEvent,
        { id: accepted.eventId, status: 'RECEIVED' },
        { status: 'HELD', statusReason: `waiting for visitor ${clientUserId}`, workflowId: accepted.workflowId },
      );
      return { outcome: 'held' as const };
    }
    const { visitor } = await upsertVisitor(tx, accepted.accountId, clientUserId, details);
    await tx.nativeUpdate(InboundEvent, { id: accepted.eventId }, { visitorId: visitor.id });
    // Every attempt releases what is still held, not only the one that created the visitor: an attempt that
    // committed and then failed before signalling leaves its retry to do it.
    const held = await heldEventsOf(tx, accepted.accountId, clientUserId);
    return { outcome: 'linked' as const, visitorId: visitor.id, held };
  });
  if (result.outcome === 'held') return result;
  await releaseHeldEvents(deps.temporal.client, result.held, result.visitorId);
  return { outcome: 'linked', visitorId: result.visitorId };
}
