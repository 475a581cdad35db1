import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AbTestArm } from '../../persistence/entities/ab-test-member.ts';
import { PushSend } from '../../persistence/entities/push-send.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';
import { findOwnedAbTest } from './find-owned-ab-test.ts';

export async function listPushSends(
  em: EntityManager,
  accountId: string,
  filter: { abTestId: string; arm?: AbTestArm | undefined; limit: number; cursor?: string | undefined },
): Promise<Page<PushSend>> {
  await findOwnedAbTest(em, accountId, filter.abTestId);
  const where: FilterQuery<PushSend> = { abTestId: filter.abTestId };
  if (filter.arm) where.arm = filter.arm;
  return paginate(em, PushSend, where, filter);
}
