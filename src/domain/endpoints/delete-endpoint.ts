import type { EntityManager } from '@mikro-orm/postgresql';
import { findOwnedEndpoint } from './find-owned-endpoint.ts';

/**
 * Deletes an endpoint: it receives nothing more, and deliveries still retrying stop at their next attempt. The row
 * stays, marked deleted, so its delivery history remains consistent.
 */
export async function deleteEndpoint(em: EntityManager, accountId: string, endpointId: string): Promise<void> {
  const endpoint = await findOwnedEndpoint(em, accountId, endpointId);
  endpoint.deletedAt = new Date();
  endpoint.status = 'disabled';
  endpoint.disabledReason = 'deleted';
  await em.flush();
}
