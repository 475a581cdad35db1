import type { EntityManager } from '@mikro-orm/postgresql';
import { Delivery } from '../../persistence/entities/delivery.ts';

/** Marks a still-pending delivery as finished; a delivery already finished keeps its first outcome. */
export async function finishDelivery(
  em: EntityManager,
  input: { deliveryId: string; status: 'succeeded' | 'failed'; reason?: string | undefined },
): Promise<void> {
  await em.nativeUpdate(
    Delivery,
    { id: input.deliveryId, status: 'pending' },
    { status: input.status, failureReason: input.reason ?? null, completedAt: new Date() },
  );
}
