import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A customer of the service. Its API key is kept only as a SHA-256 hash; the key itself is shown once. */
export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(200),
    apiKeyHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type Account = InferEntity<typeof Account>;
