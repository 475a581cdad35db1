import { Delivery } from '../../persistence/entities/delivery.ts';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { newId } from '../../security/ids.ts';
import { redeliveryWorkflowId, startDelivery } from '../../../workflows/deliver-webhook.contract.ts';
import { DomainError, notFound } from '../errors.ts';
import type { PublishDeps } from '../events/publish-event.ts';
import { findOwnedEndpoint } from '../endpoints/find-owned-endpoint.ts';
import { retryOf } from './delivery-settings.ts';

/**
 * Sends a delivered (or failed) event again to the same endpoint, under the same envelope id, so the receiver can
 * dedupe it. It is a new delivery with attempts of its own, pointing back at the original.
 */
export async function redeliver(deps: PublishDeps, accountId: string, deliveryId: string, endpointId?: string): Promise<Delivery> {
  const original = await deps.em.findOne(Delivery, { id: deliveryId, accountId, ...(endpointId ? { endpointId } : {}) });
  if (!original) throw notFound('Delivery');
  const endpoint = await findOwnedEndpoint(deps.em, accountId, original.endpointId);
  if (endpoint.status !== 'enabled') throw new DomainError('invalid_state', `The endpoint is ${endpoint.status}; enable it to redeliver`);
  const event = await deps.em.findOneOrFail(OutboundEvent, { id: original.eventId }, { fields: ['id', 'type'] });

  const id = newId('dlv_');
  const workflowId = redeliveryWorkflowId(event.id, endpoint.id, id);
  const delivery = deps.em.create(Delivery, {
    id,
    accountId,
    eventId: event.id,
    endpointId: endpoint.id,
    redeliveryOf: original.id,
    workflowId,
    status: 'pending',
    attemptCount: 0,
  });
  // The row comes first: the run's attempts need it. No transaction can span the Temporal call, so a start that
  // fails takes the row away again, and no pending delivery is left that nothing will ever send.
  await deps.em.flush();
  try {
    await startDelivery(
      deps.temporal,
      { version: 1, deliveryId: id, eventId: event.id, endpointId: endpoint.id, accountId, retry: retryOf(deps.delivery) },
      { workflowId, eventType: event.type, summary: `Redeliver ${event.type} ${event.id} to ${endpoint.url}` },
    );
  } catch (error) {
    // The caller must see the start's failure, not a failure of this clean-up.
    await deps.em.fork().nativeDelete(Delivery, { id, status: 'pending', attemptCount: 0 }).catch(() => undefined);
    throw error;
  }
  return delivery;
}
