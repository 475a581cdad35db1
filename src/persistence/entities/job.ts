import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { jobStatuses } from '../../sandbox-safe/job-transitions.ts';
import { Account } from './account.ts';
import { App } from './app.ts';
import { Notification } from './notification.ts';
import { updatedAtProperty } from './updated-at.ts';

/**
 * The queryable record of a recording job. Its workflow `job:<id>` owns the lifecycle and writes every transition
 * here; `lastTransitionId` lets a retried write recognise that it already happened.
 */
export const Job = defineEntity({
  name: 'Job',
  tableName: 'jobs',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    appId: () => p.manyToOne(App).mapToPk().fieldName('app_id'),
    notificationId: () => p.manyToOne(Notification).mapToPk().fieldName('notification_id'),
    title: p.string().length(200),
    description: p.text().nullable(),
    richPushLevel: p.string().length(32),
    dueDate: p.bigint('number').nullable(),
    artistDueDate: p.bigint('number').nullable(),
    artist: p.string().length(320).nullable(),
    favourite: p.integer(),
    script: p.text().nullable(),
    jobType: p.string().length(32),
    isStock: p.integer(),
    filterId: p.string().length(128).nullable(),
    status: p.enum(jobStatuses),
    /** The take selected: a file (`fil_…`) submitted to this job. */
    selectedFileId: p.string().length(40).nullable(),
    lastTransitionId: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
  },
  indexes: [{ properties: ['accountId', 'createdAt', 'id'] }, { properties: ['appId', 'status', 'createdAt', 'id'] }],
});

export type Job = InferEntity<typeof Job>;
