import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { App } from './app.ts';
import { updatedAtProperty } from './updated-at.ts';

export const notificationStatuses = ['DRAFT', 'RECORDING', 'READY'] as const;
export type NotificationStatus = (typeof notificationStatuses)[number];

/** What counts as a conversion of a message: an event of this type from a person it reached within so many hours. */
const conversionGoalSchema = z.object({ eventType: z.string(), withinHours: z.number() });
export type ConversionGoal = z.infer<typeof conversionGoalSchema>;

/** A rich push message. `status` follows its recording job: DRAFT → RECORDING → READY. */
export const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    appId: () => p.manyToOne(App).mapToPk().fieldName('app_id'),
    title: p.string().length(200),
    subtitle: p.string().length(200).nullable(),
    text: p.text().nullable(),
    action: p.string().length(32),
    fbTitle: p.string().length(200).nullable(),
    fbSubtitle: p.string().length(200).nullable(),
    fbText: p.text().nullable(),
    expiry: p.integer(),
    playTime: p.bigint('number').nullable(),
    about: storedJson(z.array(z.unknown())),
    filterId: p.string().length(128).nullable(),
    priority: p.string().length(16),
    favourite: p.integer(),
    type: p.string().length(32),
    channel: p.string().length(32),
    status: p.enum(notificationStatuses),
    /** The recording the message plays: the accepted job recording, or the stock recording of a slot. */
    recordingUrl: p.text().nullable(),
    recordingFileId: p.string().length(40).nullable(),
    recordingStockId: p.uuid().nullable(),
    /** The recording's length and type (`audio/mp4`), when the service holds its file. */
    recordingDurationMs: p.integer().nullable(),
    recordingContentType: p.string().length(100).nullable(),
    conversion: storedJson(conversionGoalSchema).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
  },
  indexes: [
    { properties: ['accountId', 'createdAt', 'id'] },
    { properties: ['appId', 'status', 'createdAt', 'id'] },
    // Ingest looks up, for each event, the account's messages converted by its type.
    {
      name: 'notifications_conversion_index',
      expression: `create index "notifications_conversion_index" on "notifications" ("account_id", ("conversion" ->> 'eventType')) where "conversion" is not null`,
    },
  ],
});

export type Notification = InferEntity<typeof Notification>;
