import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { abTestArms } from './ab-test-member.ts';

/**
 * A/B and test sends write their rows `pending` before sending; a campaign send writes each row once, with its answer
 * (its snapshot is `campaign_shards`, docs/adr/0059), and `pending` only for a push the provider asked to retry.
 * - `pending`: not yet tried (or handed back after the provider asked to retry);
 * - `sending`: claimed by a send attempt and in flight at the provider;
 * - `sent`, `failed`, `unregistered`: the provider's answer (`unregistered` unsubscribes the device);
 * - `skipped`: the device unsubscribed or was deleted between the snapshot and its turn;
 * - `unconfirmed`: in flight when its send attempt died (a worker crash) or when its request failed after it left (a
 *   timeout): the provider may or may not have it, and it is never sent again, so no device gets a push twice
 *   (docs/adr/0055);
 * - `cancelled`: not yet sent when its campaign send was cancelled (or failed);
 * - `capped`: not sent, because the device had had its app's frequency cap of pushes (never sent later);
 * - `quiet`: not sent, because the device was in its app's quiet hours (action `skip`);
 * - `expired`: not sent, because the device's quiet hours ended after the message expired (action `delay`).
 * A push held by quiet hours (action `delay`) waits `pending` with `notBefore` set.
 */
export const pushSendStatuses = ['pending', 'sending', 'sent', 'failed', 'unregistered', 'skipped', 'unconfirmed', 'cancelled', 'capped', 'quiet', 'expired'] as const;
export type PushSendStatus = (typeof pushSendStatuses)[number];

/** What sent a push: an A/B test's arm, a message's campaign send, a test send to chosen devices, or an experience's push node (source `flow`, the interface spec's word for an experience). */
export const pushSendSources = ['abtest', 'campaign', 'test', 'flow'] as const;
export type PushSendSource = (typeof pushSendSources)[number];

/**
 * One push to one device. A device gets at most one push per A/B test (abTestId, deviceId) and per campaign send
 * (notificationId, deviceId among campaign rows): a page retried after a crash finds the rows it wrote and sends only
 * what is still `pending`. `clickedAt` is the first click; later clicks change nothing.
 */
export const PushSend = defineEntity({
  name: 'PushSend',
  tableName: 'push_sends',
  properties: {
    id: p.uuid().primary(),
    accountId: p.uuid().fieldName('account_id'),
    source: p.enum(pushSendSources),
    abTestId: p.uuid().fieldName('ab_test_id').nullable(),
    deviceId: p.uuid().fieldName('device_id'),
    arm: p.enum(abTestArms).nullable(),
    notificationId: p.uuid().fieldName('notification_id'),
    status: p.enum(pushSendStatuses),
    error: p.text().nullable(),
    providerMessageId: p.string().length(300).nullable(),
    /** Held by quiet hours: not sent before this time. Kept once sent, so the index below only ever grows by held pushes. */
    notBefore: p.datetime().nullable().fieldName('not_before'),
    sentAt: p.datetime().nullable(),
    /** The conversion attributed to this push (the person's latest push of the message within its window). */
    convertedAt: p.datetime().nullable().fieldName('converted_at'),
    clickedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
  // Partial indexes: each source's rows are indexed only where that source looks them up, so a million campaign rows
  // cost no A/B index entries. No index holds `status`: a status change then writes no index entry (a HOT update).
  indexes: [
    { name: 'push_sends_ab_test_device_unique', expression: 'create unique index "push_sends_ab_test_device_unique" on "push_sends" ("ab_test_id", "device_id") where "ab_test_id" is not null' },
    { name: 'push_sends_ab_test_arm_index', expression: 'create index "push_sends_ab_test_arm_index" on "push_sends" ("ab_test_id", "arm") where "ab_test_id" is not null' },
    { name: 'push_sends_ab_test_created_index', expression: 'create index "push_sends_ab_test_created_index" on "push_sends" ("ab_test_id", "created_at", "id") where "ab_test_id" is not null' },
    { name: 'push_sends_campaign_device_unique', expression: `create unique index "push_sends_campaign_device_unique" on "push_sends" ("notification_id", "device_id") where "source" = 'campaign'` },
    { name: 'push_sends_notification_created_index', properties: ['notificationId', 'createdAt', 'id'] },
    { name: 'push_sends_flow_device_index', expression: `create index "push_sends_flow_device_index" on "push_sends" ("device_id") where "source" = 'flow'` },
    { name: 'push_sends_held_index', expression: 'create index "push_sends_held_index" on "push_sends" ("notification_id", "not_before") where "not_before" is not null' },
  ],
});

export type PushSend = InferEntity<typeof PushSend>;
