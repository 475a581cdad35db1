import type { EntityManager } from '@mikro-orm/postgresql';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { Visitor } from '../../persistence/entities/visitor.ts';
import type { EventEnvelope } from '../events/envelope.ts';
import type { ExperienceContext } from '../../sandbox-safe/experiences/context-fields.ts';
import type { RunRef } from './run-ref.ts';

/**
 * What a run's conditions and templates read, as it is now: the visitor's current attributes, the event that started
 * the run (`trigger.*`), and the event being looked at (`event.*`; the trigger itself when none is given).
 */
export async function loadRunContext(em: EntityManager, run: RunRef, eventId: string = run.triggerEventId): Promise<ExperienceContext> {
  const ids = [...new Set([run.triggerEventId, eventId])];
  const [events, visitor] = await Promise.all([
    em.find(InboundEvent, { id: { $in: ids } }, { fields: ['id', 'eventType', 'attributes'] }),
    run.visitorId ? em.findOne(Visitor, { id: run.visitorId }, { fields: ['clientUserId', 'attributes'] }) : null,
  ]);
  const asContext = (id: string) => {
    const event = events.find((candidate) => candidate.id === id);
    return event ? { eventType: event.eventType, attributes: event.attributes ?? {} } : undefined;
  };
  return {
    trigger: asContext(run.triggerEventId),
    event: asContext(eventId),
    visitor: visitor ? { clientUserId: visitor.clientUserId, attributes: visitor.attributes } : null,
  };
}

/**
 * The `data` of an experience's outbound event: the visitor and its attributes as they are when sent; `clientUserId`
 * only when the service has one (an anonymous run's events carry no such key at all).
 */
export function experienceEventData(run: RunRef, context: ExperienceContext, result: Record<string, unknown>): EventEnvelope['data'] {
  return {
    ...(run.clientUserId ? { clientUserId: run.clientUserId } : {}),
    visitorId: run.visitorId,
    attributes: context.visitor?.attributes ?? {},
    result,
  };
}
