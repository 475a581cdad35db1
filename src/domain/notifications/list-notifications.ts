import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { Notification, type NotificationStatus } from '../../persistence/entities/notification.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';

export interface NotificationFilter {
  appId?: string | undefined;
  status?: NotificationStatus | undefined;
  limit: number;
  cursor?: string | undefined;
}

export function listNotifications(em: EntityManager, accountId: string, filter: NotificationFilter): Promise<Page<Notification>> {
  const where: FilterQuery<Notification> = { accountId };
  if (filter.appId) where.appId = filter.appId;
  if (filter.status) where.status = filter.status;
  return paginate(em, Notification, where, filter);
}
