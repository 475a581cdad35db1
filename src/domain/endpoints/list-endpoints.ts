import type { EntityManager } from '@mikro-orm/postgresql';
import { Endpoint } from '../../persistence/entities/endpoint.ts';

export function listEndpoints(em: EntityManager, accountId: string): Promise<Endpoint[]> {
  return em.find(Endpoint, { accountId, deletedAt: null }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}
