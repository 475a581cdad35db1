import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { abTestArms } from './ab-test-member.ts';

export const pushSendStatuses = ['pending', 'sent', 'failed', 'unregistered'] as const;
export type PushSendStatus = (typeof pushSendStatuses)[number];

/**
 * One push to one device. (abTestId, deviceId) is unique, so a page of sends retried after a crash finds the rows
 * it wrote and sends only what is still `pending`. `clickedAt` is the first click; later clicks change nothing.
 */
export const PushSend = defineEntity({
  name: 'PushSend',
  tableName: 'push_sends',
  properties: {
    id: p.uuid().primary(),
    accountId: p.uuid().fieldName('account_id'),
    abTestId: p.uuid().fieldName('ab_test_id'),
    deviceId: p.uuid().fieldName('device_id'),
    arm: p.enum(abTestArms),
    notificationId: p.uuid().fieldName('notification_id'),
    status: p.enum(pushSendStatuses),
    error: p.text().nullable(),
    providerMessageId: p.string().length(300).nullable(),
    sentAt: p.datetime().nullable(),
    clickedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
  uniques: [{ properties: ['abTestId', 'deviceId'] }],
  indexes: [{ properties: ['abTestId', 'arm', 'status'] }, { properties: ['abTestId', 'createdAt', 'id'] }],
});

export type PushSend = InferEntity<typeof PushSend>;
