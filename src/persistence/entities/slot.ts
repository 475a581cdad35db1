import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { Notification } from './notification.ts';
import { Stock } from './stock.ts';

/** A message made from a stock recording. */
export const Slot = defineEntity({
  name: 'Slot',
  tableName: 'slots',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    stockId: () => p.manyToOne(Stock).mapToPk().fieldName('stock_id'),
    notificationId: () => p.manyToOne(Notification).mapToPk().fieldName('notification_id'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type Slot = InferEntity<typeof Slot>;
