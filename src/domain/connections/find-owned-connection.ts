import type { EntityManager } from '@mikro-orm/postgresql';
import { Connection } from '../../persistence/entities/connection.ts';
import { notFound } from '../errors.ts';

export async function findOwnedConnection(em: EntityManager, accountId: string, connectionId: string): Promise<Connection> {
  const connection = await em.findOne(Connection, { id: connectionId, accountId, deletedAt: null });
  if (!connection) throw notFound('Connection');
  return connection;
}

export function listConnections(em: EntityManager, accountId: string): Promise<Connection[]> {
  return em.find(Connection, { accountId, deletedAt: null }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}
