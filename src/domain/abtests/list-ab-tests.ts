import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AbTest, type AbTestState } from '../../persistence/entities/ab-test.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';

export async function listAbTests(
  em: EntityManager,
  accountId: string,
  filter: { appId: string; state?: AbTestState | undefined; limit: number; cursor?: string | undefined },
): Promise<Page<AbTest>> {
  await findOwnedApp(em, accountId, filter.appId);
  const where: FilterQuery<AbTest> = { appId: filter.appId };
  if (filter.state) where.state = filter.state;
  return paginate(em, AbTest, where, filter);
}
