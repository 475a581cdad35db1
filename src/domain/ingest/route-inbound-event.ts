import type { EntityManager } from '@mikro-orm/postgresql';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { countPushResponses } from '../sends/push-responses.ts';
import type { PublishDeps } from '../events/publish-event.ts';
import { dispatchRouting } from '../routing/dispatch-routing.ts';
import { routeEvent } from '../routing/route-event.ts';
import type { RoutingOutcome } from '../routing/routing-outcome.ts';
import { lockPerson } from '../../persistence/person-lock.ts';
import { upsertVisitor } from '../visitors/link-visitor.ts';

/** Retryable on purpose: the activity tries again shortly, by when the older event has been routed. */
export class OlderEventsPending extends Error {
  override name = 'OlderEventsPending';
}

/**
 * The last step of an ingest run: a held event released to its visitor first brings its attributes and contacts to
 * the visitor; then the event is routed to experiences and marked PROCESSED with the outcome, in one transaction
 * under the person's lock. After the commit the decision is carried out on Temporal; a retry of this step finds the
 * stored outcome and carries it out again, which is harmless.
 */
export async function routeInboundEvent(
  deps: PublishDeps,
  input: { eventId: string; visitorId: string | null; released: boolean },
): Promise<RoutingOutcome> {
  const outcome = await deps.em.transactional(async (tx) => {
    const event = await tx.findOneOrFail(InboundEvent, { id: input.eventId });
    if (event.status === 'PROCESSED' && event.routingOutcome) return event.routingOutcome;
    if (event.clientUserId) await lockPerson(tx, event.accountId, event.clientUserId);
    if (event.clientUserId) {
      // A person's events are routed in the order they were received: wait while an older one is still held. This
      // holds for an event that was never held too: one still in the outbox when its person was linked reaches this
      // point while the older, released ones are being routed.
      const older = await tx.count(InboundEvent, {
        accountId: event.accountId,
        clientUserId: event.clientUserId,
        status: 'HELD',
        $or: [{ createdAt: { $lt: event.createdAt } }, { createdAt: event.createdAt, id: { $lt: event.id } }],
      });
      if (older > 0) throw new OlderEventsPending(`${older} older event(s) of ${event.clientUserId} are routed first`);
    }
    if (input.released && event.clientUserId) {
      await upsertVisitor(tx, event.accountId, event.clientUserId, {
        attributes: event.attributes ?? undefined,
        email: event.endpoints?.email,
        phone: event.endpoints?.phone,
      });
    }
    await countPushResponses(tx, event);
    const routed = await routeEvent(tx, event, input.visitorId, deps);
    event.visitorId = input.visitorId;
    event.status = 'PROCESSED';
    event.statusReason = null;
    event.routingOutcome = { ...routed };
    event.processedAt = new Date();
    await tx.flush();
    return routed;
  });
  await dispatchRouting(deps, [{ eventId: input.eventId, outcome }]);
  return outcome;
}

/** Marks an event that ended without routing: EXPIRED (held too long) or FAILED (a step kept failing). */
export async function finishInboundEvent(em: EntityManager, input: { eventId: string; status: 'EXPIRED' | 'FAILED'; reason: string }): Promise<void> {
  await em.nativeUpdate(InboundEvent, { id: input.eventId }, { status: input.status, statusReason: input.reason, processedAt: new Date() });
}
