import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';

/**
 * An event the service emitted. `body` is the exact JSON text that is signed and sent, kept as text so every
 * attempt and every redelivery carries the same bytes.
 */
export const OutboundEvent = defineEntity({
  name: 'OutboundEvent',
  tableName: 'outbound_events',
  properties: {
    id: p.string().length(40).primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    type: p.string().length(100),
    body: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['accountId', 'createdAt', 'id'] }],
});

export type OutboundEvent = InferEntity<typeof OutboundEvent>;
