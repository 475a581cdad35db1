import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { App } from './app.ts';

/** A ready-made recording an app can turn into a message without a recording job. */
export const Stock = defineEntity({
  name: 'Stock',
  tableName: 'stock',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    appId: () => p.manyToOne(App).mapToPk().fieldName('app_id'),
    title: p.string().length(200),
    /** The playback URL of its file. */
    url: p.text(),
    /** The file it plays (`fil_…`); null for stock made before the service held files. */
    fileId: p.string().length(40).nullable(),
    richPushLevel: p.string().length(32).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['appId', 'createdAt', 'id'] }],
});

export type Stock = InferEntity<typeof Stock>;
