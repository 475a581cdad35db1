import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Notification } from '../../persistence/entities/notification.ts';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { Slot } from '../../persistence/entities/slot.ts';
import { Stock } from '../../persistence/entities/stock.ts';
import { notFound } from '../errors.ts';
import { requireReadyFile } from '../files/find-owned-file.ts';
import { playbackOf } from '../files/playback-of.ts';
import { createNotification, type NotificationFields } from '../notifications/create-notification.ts';

/**
 * Makes a READY message that plays a stock recording, with no recording job, and records the slot. The stock's file
 * must be ready (409 `file_not_ready` while it processes, 422 `file_rejected`). The message takes
 * the fields of a created one (the spec's from-stock body lacks filterId, priority, favourite and channel; the API
 * fills their defaults), so it can target a segment, which must be one of the app's.
 */
export async function createSlotFromStock(
  em: EntityManager,
  accountId: string,
  stockId: string,
  fields: NotificationFields,
): Promise<{ slot: Slot; notification: Notification }> {
  return em.transactional(async (tx) => {
    const stock = await tx.findOne(Stock, { id: stockId, accountId });
    if (!stock) throw notFound('Stock');
    // Stock made before the service held files plays its URL as it is.
    const file = stock.fileId == null ? null : await tx.findOneOrFail(RecordingFile, { id: stock.fileId });
    if (file) requireReadyFile(file);
    const notification = await createNotification(tx, accountId, fields, {
      status: 'READY',
      ...(file ? playbackOf(file) : { recordingUrl: stock.url }),
      recordingStockId: stock.id,
    });
    const slot = tx.create(Slot, { id: randomUUID(), accountId, stockId: stock.id, notificationId: notification.id });
    await tx.flush();
    return { slot, notification };
  });
}
