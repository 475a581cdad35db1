import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { Stock } from '../../persistence/entities/stock.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';

export function listStock(em: EntityManager, accountId: string, filter: { appId?: string | undefined; limit: number; cursor?: string | undefined }): Promise<Page<Stock>> {
  const where: FilterQuery<Stock> = { accountId };
  if (filter.appId) where.appId = filter.appId;
  return paginate(em, Stock, where, filter);
}
