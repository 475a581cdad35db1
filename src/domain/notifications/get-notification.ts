import type { EntityManager } from '@mikro-orm/postgresql';
import { Notification } from '../../persistence/entities/notification.ts';
import { notFound } from '../errors.ts';

export async function getNotification(em: EntityManager, accountId: string, id: string): Promise<Notification> {
  const notification = await em.findOne(Notification, { id, accountId });
  if (!notification) throw notFound('Notification');
  return notification;
}
