import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Notification } from '../../persistence/entities/notification.ts';
import { Slot } from '../../persistence/entities/slot.ts';
import { Stock } from '../../persistence/entities/stock.ts';
import { notFound } from '../errors.ts';
import { createNotification, type NotificationFields } from '../notifications/create-notification.ts';

/** The from-stock body carries no priority, favourite or channel (spec, operation 7): they take their defaults. */
export type SlotMessageFields = Omit<NotificationFields, 'priority' | 'favourite' | 'channel' | 'filterId'>;

/** Makes a READY message that plays a stock recording, with no recording job, and records the slot. */
export async function createSlotFromStock(
  em: EntityManager,
  accountId: string,
  stockId: string,
  message: SlotMessageFields,
): Promise<{ slot: Slot; notification: Notification }> {
  const fields: NotificationFields = { ...message, priority: 'NORMAL', favourite: 0, channel: 'PUSH' };
  return em.transactional(async (tx) => {
    const stock = await tx.findOne(Stock, { id: stockId, accountId });
    if (!stock) throw notFound('Stock');
    const notification = await createNotification(tx, accountId, fields, {
      status: 'READY',
      recordingUrl: stock.url,
      recordingStockId: stock.id,
    });
    const slot = tx.create(Slot, { id: randomUUID(), accountId, stockId: stock.id, notificationId: notification.id });
    await tx.flush();
    return { slot, notification };
  });
}
