import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Campaign } from './campaign.ts';

/**
 * One shard of a campaign send's snapshot: the devices it goes to, in id order, and how far sending has got. The
 * snapshot is these arrays rather than a `pending` row per device, so a push's row is written once, with its answer
 * (docs/adr/0059). `claimed` devices have been taken by a send attempt (their pushes may be in flight); `done` have
 * their rows. A new attempt writes the devices between the two as `unconfirmed`: they are never sent again.
 * `retries` counts devices the provider asked to retry, written back as `pending` rows the next attempt sends first.
 * A local-time send's shards each hold devices of one group (one UTC offset), sent at the group's `sendAt`.
 */
export const CampaignShard = defineEntity({
  name: 'CampaignShard',
  tableName: 'campaign_shards',
  properties: {
    notificationId: () => p.manyToOne(Campaign).mapToPk().primary().fieldName('notification_id'),
    position: p.integer().primary(),
    deviceIds: p.array().columnType('uuid[]').fieldName('device_ids'),
    size: p.integer(),
    claimed: p.integer().default(0),
    done: p.integer().default(0),
    retries: p.integer().default(0),
    /** A local-time send's group: when its devices' local time reaches playTime's (null: at the send's start). */
    sendAt: p.datetime().nullable().fieldName('send_at'),
    /** That group's UTC offset on the day, in minutes (null for a send not in local time). */
    utcOffsetMinutes: p.integer().nullable().fieldName('utc_offset_minutes'),
    /** The group's time plus the message's expiry had passed at the snapshot: claimed whole, never sent. */
    expired: p.boolean().default(false),
  },
});

export type CampaignShard = InferEntity<typeof CampaignShard>;
