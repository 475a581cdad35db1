import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { jsonObjectSchema, storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { App } from './app.ts';
import { updatedAtProperty } from './updated-at.ts';

export const platforms = ['ios', 'android', 'web'] as const;
export type Platform = (typeof platforms)[number];

/** The rows a segment may hold: what every segment query filters on, and the predicate of its partial indexes. */
export const segmentableDevices = 'subscribed and deleted_at is null';

/**
 * A push token of an app: one row per (app, token). Deleting a device erases its personal data (token, user id,
 * attributes, locale, timezone) and keeps the row, marked deleted, so records that name the device id stay valid.
 * Segments read this table with one SQL query each (src/domain/segments/segment-condition.ts); the partial indexes
 * below serve the predicates that query can narrow with.
 */
export const Device = defineEntity({
  name: 'Device',
  tableName: 'devices',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    appId: () => p.manyToOne(App).mapToPk().fieldName('app_id'),
    /** Null once the device is deleted. */
    token: p.string().length(1024).nullable(),
    platform: p.enum(platforms),
    clientUserId: p.string().length(255).nullable(),
    attributes: storedJson(jsonObjectSchema),
    subscribed: p.boolean(),
    locale: p.string().length(35).nullable(),
    timezone: p.string().length(64).nullable(),
    /** When the device's recent pushes went out, those that count toward its app's frequency cap (frequency-cap.ts). */
    recentPushes: p.array().columnType('timestamptz[]').nullable().fieldName('recent_pushes').lazy(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
    lastSeenAt: p.datetime().onCreate(() => new Date()),
    deletedAt: p.datetime().nullable(),
  },
  uniques: [{ properties: ['appId', 'token'] }],
  indexes: [
    // GET /device/list, newest first.
    { properties: ['appId', 'createdAt', 'id'] },
    { properties: ['appId', 'clientUserId'] },
    // Segment queries: keyset pages and counts, then the fixed columns a rule can narrow with.
    { name: 'devices_segment_id_index', properties: ['appId', 'id'], where: segmentableDevices },
    { name: 'devices_segment_platform_index', properties: ['appId', 'platform', 'id'], where: segmentableDevices },
    { name: 'devices_segment_last_seen_at_index', properties: ['appId', 'lastSeenAt'], where: segmentableDevices },
    { name: 'devices_segment_locale_index', properties: ['appId', 'locale'], where: segmentableDevices },
    // Attribute equality (eq, in) is containment (@>), which a GIN index with jsonb_path_ops answers.
    {
      name: 'devices_segment_attributes_index',
      expression: `create index "devices_segment_attributes_index" on "devices" using gin ("attributes" jsonb_path_ops) where ${segmentableDevices}`,
    },
  ],
});

export type Device = InferEntity<typeof Device>;
