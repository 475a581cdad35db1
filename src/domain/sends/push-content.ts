import type { EntityManager } from '@mikro-orm/postgresql';
import { Job } from '../../persistence/entities/job.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import { Stock } from '../../persistence/entities/stock.ts';
import { pushNotificationOf, type PushNotification } from '../../outbound/push/push-provider.ts';

/**
 * What every push of a send shows and plays: the message as stored, with the level of the recording it plays (the
 * stock item's, for a message made from stock; else its recording job's), so the app renders it as recorded.
 */
export async function loadPushContent(em: EntityManager, notificationId: string): Promise<PushNotification> {
  const notification = await em.findOneOrFail(Notification, { id: notificationId });
  const level = notification.recordingStockId
    ? (await em.findOne(Stock, { id: notification.recordingStockId }))?.richPushLevel
    : (await em.findOne(Job, { notificationId }, { orderBy: { createdAt: 'desc' } }))?.richPushLevel;
  return pushNotificationOf(notification, level ?? null);
}
