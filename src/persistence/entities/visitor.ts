import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { jsonObjectSchema, storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { updatedAtProperty } from './updated-at.ts';

/** A person of an account, known by the client's id for them (`clientUserId`). */
export const Visitor = defineEntity({
  name: 'Visitor',
  tableName: 'visitors',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    clientUserId: p.string().length(255),
    attributes: storedJson(jsonObjectSchema),
    email: p.string().length(320).nullable(),
    phone: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
  },
  uniques: [{ properties: ['accountId', 'clientUserId'] }],
});

export type Visitor = InferEntity<typeof Visitor>;
