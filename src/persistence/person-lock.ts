import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Serialises everything that links a person: creating the visitor, holding an event for it, releasing held events.
 * Without it, an event could be held just after the visitor's creation looked for held events, and wait for ever.
 * A transaction-scoped advisory lock: it lasts until the caller's transaction ends.
 */
export async function lockPerson(em: EntityManager, accountId: string, clientUserId: string): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`${accountId}:${clientUserId}`]);
}
