import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { segmentRulesSchema } from '../../domain/segments/rules-schema.ts';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { App } from './app.ts';
import { updatedAtProperty } from './updated-at.ts';

/**
 * An audience segment of an app (the spec's `filterId`): rules over its devices, evaluated live by one SQL query
 * whenever the segment is counted or paged, so it never holds a list of devices.
 */
export const Segment = defineEntity({
  name: 'Segment',
  tableName: 'segments',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    appId: () => p.manyToOne(App).mapToPk().fieldName('app_id'),
    name: p.string().length(200),
    rules: storedJson(segmentRulesSchema),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
  },
  indexes: [{ properties: ['accountId', 'createdAt', 'id'] }, { properties: ['appId', 'createdAt', 'id'] }],
});

export type Segment = InferEntity<typeof Segment>;
