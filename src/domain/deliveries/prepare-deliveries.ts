import type { EntityManager } from '@mikro-orm/postgresql';
import { Delivery } from '../../persistence/entities/delivery.ts';
import { Endpoint } from '../../persistence/entities/endpoint.ts';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { derivedId } from '../../security/ids.ts';
import { deliveryWorkflowId } from '../../../workflows/deliver-webhook.contract.ts';

export interface DeliveryTarget {
  deliveryId: string;
  endpointId: string;
  url: string;
}

/**
 * For the retired `fanOutEvent` runs still in flight (new events write their deliveries in `publishEvent`).
 * Records one pending delivery per endpoint that should receive the event. Delivery ids derive from (event,
 * endpoint), so running this again after a crash finds the same rows instead of adding more.
 */
export async function prepareDeliveries(em: EntityManager, input: { eventId: string; onlyEndpointId?: string | undefined }): Promise<DeliveryTarget[]> {
  const event = await em.findOneOrFail(OutboundEvent, { id: input.eventId });
  const candidates = await em.find(Endpoint, {
    accountId: event.accountId,
    status: 'enabled',
    deletedAt: null,
    ...(input.onlyEndpointId ? { id: input.onlyEndpointId } : {}),
  });
  const endpoints = input.onlyEndpointId ? candidates : candidates.filter((endpoint) => endpoint.eventTypes.includes(event.type));
  if (endpoints.length === 0) return [];

  const createdAt = new Date();
  const targets = endpoints.map((endpoint) => ({
    deliveryId: derivedId('dlv_', event.id, endpoint.id),
    endpointId: endpoint.id,
    url: endpoint.url,
  }));
  await em
    .createQueryBuilder(Delivery)
    .insert(
      targets.map((target) => ({
        id: target.deliveryId,
        accountId: event.accountId,
        eventId: event.id,
        endpointId: target.endpointId,
        workflowId: deliveryWorkflowId(event.id, target.endpointId),
        status: 'pending' as const,
        attemptCount: 0,
        createdAt,
      })),
    )
    .onConflict('id')
    .ignore()
    .execute();
  return targets;
}
