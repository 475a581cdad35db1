import type { EntityManager } from '@mikro-orm/postgresql';
import { Connection } from '../../persistence/entities/connection.ts';

const field = { inbound: 'lastInboundAt', outbound: 'lastOutboundAt' } as const;

/**
 * Moves lastInboundAt or lastOutboundAt to `now`, at most once a second, so a busy connection's row does not become
 * a point of contention; it never moves back.
 */
export async function noteConnectionTraffic(em: EntityManager, connectionId: string, direction: 'inbound' | 'outbound', now: Date): Promise<void> {
  const name = field[direction];
  await em.nativeUpdate(Connection, { id: connectionId, $or: [{ [name]: null }, { [name]: { $lt: new Date(now.getTime() - 1000) } }] }, { [name]: now });
}
