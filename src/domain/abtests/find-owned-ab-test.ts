import type { EntityManager } from '@mikro-orm/postgresql';
import { AbTest } from '../../persistence/entities/ab-test.ts';
import { notFound } from '../errors.ts';

/** The account's test (of the given app, when one is given), or 404. */
export async function findOwnedAbTest(em: EntityManager, accountId: string, testId: string, appId?: string): Promise<AbTest> {
  const test = await em.findOne(AbTest, { id: testId, accountId, ...(appId ? { appId } : {}) });
  if (!test) throw notFound('A/B test');
  return test;
}
