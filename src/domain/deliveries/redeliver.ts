import { deliverySearchAttributes } from '../../temporal/search-attributes.ts';
import { redeliveryWorkflowId } from '../../temporal/workflow-ids.ts';
import { Delivery } from '../../persistence/entities/delivery.ts';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { newId } from '../../security/ids.ts';
import type { DeliverInput } from '../../../workflows/deliveries.ts';
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
  await deps.em.flush();
  const input: DeliverInput = { deliveryId: id, eventId: event.id, endpointId: endpoint.id, accountId, retry: retryOf(deps.delivery) };
  await deps.temporal.client.workflow.start('deliverWebhook', {
    taskQueue: deps.temporal.taskQueue,
    workflowId,
    args: [input],
    typedSearchAttributes: deliverySearchAttributes(accountId, id, event.type),
    staticSummary: `Redeliver ${event.type} ${event.id} to ${endpoint.url}`,
  });
  return delivery;
}
