import type { EntityManager } from '@mikro-orm/postgresql';
import { lockName } from './advisory-lock.ts';

/**
 * Serialises everything that links a person: creating the visitor, holding an event for it, releasing held events.
 * Without it, an event could be held just after the visitor's creation looked for held events, and wait for ever.
 * A transaction-scoped advisory lock: it lasts until the caller's transaction ends.
 */
export async function lockPerson(em: EntityManager, accountId: string, clientUserId: string): Promise<void> {
  await lockName(em, personKey({ accountId, clientUserId }));
}

/** A person: a clientUserId within an account. */
export interface Person {
  accountId: string;
  clientUserId: string;
}

/** The key that names a person: what their lock is taken on, and what their events are grouped by. */
export const personKey = ({ accountId, clientUserId }: Person) => `${accountId}:${clientUserId}`;

/**
 * Takes the locks of several persons in one statement, in one order (by key), so two callers that lock overlapping
 * sets cannot deadlock on each other.
 */
export async function lockPersons(em: EntityManager, persons: Person[]): Promise<void> {
  const keys = [...new Set(persons.map(personKey))];
  if (keys.length === 0) return;
  await em.execute(
    'select pg_advisory_xact_lock(hashtextextended(key, 0)) from (select jsonb_array_elements_text(?::jsonb) as key order by 1) as ordered',
    [JSON.stringify(keys)],
  );
}
