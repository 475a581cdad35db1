import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import type { EventConfig } from '../../persistence/entities/connection.ts';
import { Visitor } from '../../persistence/entities/visitor.ts';
import { lockPerson } from '../../persistence/person-lock.ts';
import { heldEventsOf, releaseHeldEvents, upsertVisitor } from '../visitors/link-visitor.ts';
import { storeInboundEvent, type AcceptedEvent } from './store-inbound-event.ts';

export type LinkOutcome =
  | { outcome: 'linked'; visitorId: string }
  | { outcome: 'anonymous' }
  | { outcome: 'held' }
  | { outcome: 'ignored'; reason: string };

/**
 * The first step of an ingest run: makes sure the event row exists (the run carries the event, so it can write the
 * row itself if the API's transaction never committed), then decides what happens to it:
 * - an eventType outside the connection's `eventTypes` is IGNORED;
 * - no clientUserId: processed anonymously;
 * - a known person, or a new one on a connection that creates visitors: linked (attributes and contacts merged
 *   onto the visitor; events still held for that person are released);
 * - otherwise HELD until someone links that clientUserId.
 */
export function recordInboundEvent(
  deps: { em: EntityManager; temporal: { client: Client } },
  accepted: AcceptedEvent,
  config: EventConfig,
): Promise<LinkOutcome> {
  return linkInboundEvent(deps, accepted, config, (tx) => storeInboundEvent(tx, accepted));
}

/**
 * Links a stored event (see recordInboundEvent), after `store` has made sure its row exists (within each
 * transaction). A held event's `workflowId` becomes `accepted.workflowId`, the id of the run that waits for its person.
 */
export async function linkInboundEvent(
  deps: { em: EntityManager; temporal: { client: Client } },
  accepted: AcceptedEvent,
  config: EventConfig,
  store: (tx: EntityManager) => Promise<void> = async () => undefined,
): Promise<LinkOutcome> {
  const { event } = accepted;
  if (config.eventTypes && !config.eventTypes.includes(event.eventType)) {
    const reason = `eventType ${event.eventType} is not among the connection's eventTypes`;
    await deps.em.transactional(async (tx) => {
      await store(tx);
      await tx.nativeUpdate(InboundEvent, { id: accepted.eventId }, { status: 'IGNORED', statusReason: reason, processedAt: new Date() });
    });
    return { outcome: 'ignored', reason };
  }
  if (!event.clientUserId) {
    await store(deps.em);
    return { outcome: 'anonymous' };
  }
  const clientUserId = event.clientUserId;

  const result = await deps.em.transactional(async (tx) => {
    await store(tx);
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
