import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Notification, type ConversionGoal, type NotificationStatus } from '../../persistence/entities/notification.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';
import { requireAppSegment } from '../segments/require-app-segment.ts';

export interface NotificationFields {
  appId: string;
  title: string;
  subtitle?: string | undefined;
  text?: string | undefined;
  action: string;
  fbTitle?: string | undefined;
  fbSubtitle?: string | undefined;
  fbText?: string | undefined;
  expiry: number;
  playTime?: number | undefined;
  about: unknown[];
  filterId?: string | undefined;
  priority: string;
  favourite: number;
  type: string;
  channel: string;
  conversion?: ConversionGoal | null | undefined;
}

/**
 * What a message starts with: a rich message is DRAFT with no recording until its recording job is accepted (or it
 * is made from stock); a plain `PUSH` plays no recording, so it is READY at once.
 */
export interface InitialPlayback {
  status: NotificationStatus;
  recordingUrl: string | null;
  recordingStockId: string | null;
  recordingFileId?: string | null;
  recordingDurationMs?: number | null;
  recordingContentType?: string | null;
}

const withoutRecording = (type: string): InitialPlayback => ({ status: type === 'PUSH' ? 'READY' : 'DRAFT', recordingUrl: null, recordingStockId: null });

export async function createNotification(
  em: EntityManager,
  accountId: string,
  fields: NotificationFields,
  initial: InitialPlayback = withoutRecording(fields.type),
): Promise<Notification> {
  await findOwnedApp(em, accountId, fields.appId);
  await requireAppSegment(em, accountId, fields.appId, fields.filterId);
  const notification = em.create(Notification, {
    id: randomUUID(),
    accountId,
    appId: fields.appId,
    title: fields.title,
    subtitle: fields.subtitle ?? null,
    text: fields.text ?? null,
    action: fields.action,
    fbTitle: fields.fbTitle ?? null,
    fbSubtitle: fields.fbSubtitle ?? null,
    fbText: fields.fbText ?? null,
    expiry: fields.expiry,
    playTime: fields.playTime ?? null,
    about: fields.about,
    filterId: fields.filterId ?? null,
    priority: fields.priority,
    favourite: fields.favourite,
    type: fields.type,
    channel: fields.channel,
    conversion: fields.conversion ?? null,
    ...initial,
  });
  await em.flush();
  return notification;
}
