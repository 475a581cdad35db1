import { Delivery } from '../../persistence/entities/delivery.ts';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { newId } from '../../security/ids.ts';
import { DomainError, notFound } from '../errors.ts';
import type { PublishDeps } from '../events/publish-event.ts';
import { findOwnedEndpoint } from '../endpoints/find-owned-endpoint.ts';
import { wakeDeliveryRelays } from '../../persistence/outbox-channels.ts';

/**
 * Sends a delivered (or failed) event again to the same endpoint, under the same envelope id, so the receiver can
 * dedupe it. It is a new delivery with attempts of its own, pointing back at the original, written to the delivery
 * outbox like any other: the relay claims it into a batch and starts the run that sends it.
 */
export async function redeliver(deps: PublishDeps, accountId: string, deliveryId: string, endpointId?: string): Promise<Delivery> {
  const original = await deps.em.findOne(Delivery, { id: deliveryId, accountId, ...(endpointId ? { endpointId } : {}) });
  if (!original) throw notFound('Delivery');
  const endpoint = await findOwnedEndpoint(deps.em, accountId, original.endpointId);
  if (endpoint.status !== 'enabled') throw new DomainError('invalid_state', `The endpoint is ${endpoint.status}; enable it to redeliver`);
  const event = await deps.em.findOneOrFail(OutboundEvent, { id: original.eventId }, { fields: ['id'] });

  const delivery = deps.em.create(Delivery, {
    id: newId('dlv_'),
    accountId,
    eventId: event.id,
    endpointId: endpoint.id,
    redeliveryOf: original.id,
    workflowId: null,
    taskQueue: deps.temporal.taskQueue,
    batchId: null,
    status: 'pending',
    attemptCount: 0,
  });
  await deps.em.flush();
  await wakeDeliveryRelays(deps.em);
  return delivery;
}
