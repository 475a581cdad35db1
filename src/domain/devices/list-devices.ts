import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Device, type Platform } from '../../persistence/entities/device.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';

/** An app's devices, newest first; deleted ones are left out. Another account's app lists nothing. */
export function listDevices(
  em: EntityManager,
  accountId: string,
  filter: { appId: string; platform?: Platform | undefined; limit: number; cursor?: string | undefined },
): Promise<Page<Device>> {
  const where: FilterQuery<Device> = { accountId, appId: filter.appId, deletedAt: null };
  if (filter.platform) where.platform = filter.platform;
  return paginate(em, Device, where, filter);
}
