import type { EntityManager } from '@mikro-orm/postgresql';
import { Notification } from '../../persistence/entities/notification.ts';

/**
 * Whether a message can go out to its segment: a rich message once its recording is accepted (READY), a message made
 * from stock at once (it is READY from the start), a plain PUSH message at once (it plays no recording).
 */
export const isSendable = (notification: Pick<Notification, 'type' | 'status'>) => notification.status === 'READY' || notification.type === 'PUSH';

/** What a send run needs to know of its message before it waits: whether it can go now, and how long it stays deliverable. */
export async function readCampaignMessage(em: EntityManager, notificationId: string): Promise<{ ready: boolean; expiryMinutes: number }> {
  const notification = await em.findOneOrFail(Notification, { id: notificationId });
  return { ready: isSendable(notification), expiryMinutes: notification.expiry };
}
