import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';

/** An application of an account; messages, jobs and tests belong to one. */
export const App = defineEntity({
  name: 'App',
  tableName: 'apps',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id').index(),
    name: p.string().length(200),
    /** The IANA time zone of the app's devices that do not name one (sends in local time, quiet hours). */
    defaultTimezone: p.string().length(64).default('UTC').fieldName('default_timezone'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type App = InferEntity<typeof App>;
