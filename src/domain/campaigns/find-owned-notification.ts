import type { EntityManager } from '@mikro-orm/postgresql';
import { Notification } from '../../persistence/entities/notification.ts';
import { notFound } from '../errors.ts';

/** The account's message, of `appId` when given: 404 for any other (another account's, another app's). */
export async function findOwnedNotification(em: EntityManager, accountId: string, id: string, appId?: string): Promise<Notification> {
  const notification = await em.findOne(Notification, { id, accountId, ...(appId ? { appId } : {}) });
  if (!notification) throw notFound('Notification');
  return notification;
}
