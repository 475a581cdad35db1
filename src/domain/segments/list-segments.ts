import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Segment } from '../../persistence/entities/segment.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';

/** The account's segments, newest first, without counts (counting is one query per segment; get one to count it). */
export function listSegments(
  em: EntityManager,
  accountId: string,
  filter: { appId?: string | undefined; limit: number; cursor?: string | undefined },
): Promise<Page<Segment>> {
  const where: FilterQuery<Segment> = { accountId };
  if (filter.appId) where.appId = filter.appId;
  return paginate(em, Segment, where, filter);
}
