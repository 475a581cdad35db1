import { Delivery } from '../../persistence/entities/delivery.ts';
import type { Endpoint } from '../../persistence/entities/endpoint.ts';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { newId } from '../../security/ids.ts';
import { DomainError, notFound } from '../errors.ts';
import type { PublishDeps } from '../events/publish-event.ts';
import { findOwnedEndpoint } from '../endpoints/find-owned-endpoint.ts';
import { wakeDeliveryRelays } from '../../persistence/outbox-channels.ts';

/** The endpoint a redelivery goes to, refused unless it is enabled. */
export async function enabledEndpointToRedeliverTo(deps: PublishDeps, accountId: string, endpointId: string): Promise<Endpoint> {
  const endpoint = await findOwnedEndpoint(deps.em, accountId, endpointId);
  if (endpoint.status !== 'enabled') throw new DomainError('invalid_state', `The endpoint is ${endpoint.status}; enable it to redeliver`);
  return endpoint;
}

/** A new pending delivery of the original's event to the same endpoint, pointing back at the original (not flushed). */
export function newRedelivery(deps: PublishDeps, original: Delivery): Delivery {
  return deps.em.create(Delivery, {
    id: newId('dlv_'),
    accountId: original.accountId,
    eventId: original.eventId,
    endpointId: original.endpointId,
    redeliveryOf: original.id,
    workflowId: null,
    taskQueue: deps.temporal.taskQueue,
    batchId: null,
    status: 'pending',
    attemptCount: 0,
  });
}

/**
 * Sends a delivered (or failed) event again to the same endpoint, under the same envelope id, so the receiver can
 * dedupe it. It is a new delivery with attempts of its own, pointing back at the original, written to the delivery
 * outbox like any other: the relay claims it into a batch and starts the run that sends it.
 */
export async function redeliver(deps: PublishDeps, accountId: string, deliveryId: string, endpointId?: string): Promise<Delivery> {
  const original = await deps.em.findOne(Delivery, { id: deliveryId, accountId, ...(endpointId ? { endpointId } : {}) });
  if (!original) throw notFound('Delivery');
  await enabledEndpointToRedeliverTo(deps, accountId, original.endpointId);
  await deps.em.findOneOrFail(OutboundEvent, { id: original.eventId }, { fields: ['id'] });
  const delivery = newRedelivery(deps, original);
  await deps.em.flush();
  await wakeDeliveryRelays(deps.em);
  return delivery;
}
