import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { Delivery, type DeliveryStatus } from '../../persistence/entities/delivery.ts';
import { DeliveryAttempt } from '../../persistence/entities/delivery-attempt.ts';
import { OutboundEvent } from '../../persistence/entities/outbound-event.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';
import { findOwnedEndpoint } from '../endpoints/find-owned-endpoint.ts';

export interface DeliveryWithAttempts {
  delivery: Delivery;
  eventType: string;
  attempts: DeliveryAttempt[];
}

/** A page of an endpoint's deliveries, newest first, each with its event type and every attempt. */
export async function listDeliveries(
  em: EntityManager,
  accountId: string,
  endpointId: string,
  filter: { status?: DeliveryStatus | undefined; limit: number; cursor?: string | undefined },
): Promise<Page<DeliveryWithAttempts>> {
  await findOwnedEndpoint(em, accountId, endpointId);
  const where: FilterQuery<Delivery> = { endpointId, accountId };
  if (filter.status) where.status = filter.status;
  const page = await paginate(em, Delivery, where, filter);
  if (page.items.length === 0) return { items: [], nextCursor: page.nextCursor };

  const ids = page.items.map((delivery) => delivery.id);
  const [attempts, events] = await Promise.all([
    em.find(DeliveryAttempt, { deliveryId: { $in: ids } }, { orderBy: { attemptNumber: 'asc' } }),
    em.find(OutboundEvent, { id: { $in: [...new Set(page.items.map((delivery) => delivery.eventId))] } }, { fields: ['id', 'type'] }),
  ]);
  const typeOf = new Map(events.map((event) => [event.id, event.type]));
  return {
    items: page.items.map((delivery) => ({
      delivery,
      eventType: typeOf.get(delivery.eventId) ?? 'unknown',
      attempts: attempts.filter((attempt) => attempt.deliveryId === delivery.id),
    })),
    nextCursor: page.nextCursor,
  };
}
