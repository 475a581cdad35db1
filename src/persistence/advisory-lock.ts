import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A transaction-scoped advisory lock on a name: held until the caller's transaction ends, by at most one transaction
 * at a time. Names are hashed to 64 bits, so two names may share a lock (they then only wait for each other).
 */
export async function lockName(em: EntityManager, name: string): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [name]);
}
