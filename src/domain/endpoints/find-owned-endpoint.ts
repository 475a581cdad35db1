import type { EntityManager } from '@mikro-orm/postgresql';
import { Endpoint } from '../../persistence/entities/endpoint.ts';
import { notFound } from '../errors.ts';

/** A live endpoint of this account, or 404 (deleted endpoints and other accounts' endpoints look the same). */
export async function findOwnedEndpoint(em: EntityManager, accountId: string, endpointId: string): Promise<Endpoint> {
  const endpoint = await em.findOne(Endpoint, { id: endpointId, accountId, deletedAt: null });
  if (!endpoint) throw notFound('Endpoint');
  return endpoint;
}
