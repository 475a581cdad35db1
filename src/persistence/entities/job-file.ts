import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { Job } from './job.ts';

/** A recording the artist submitted for a job. Its id is the `file_id` that select takes. */
export const JobFile = defineEntity({
  name: 'JobFile',
  tableName: 'job_files',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    jobId: () => p.manyToOne(Job).mapToPk().fieldName('job_id').index(),
    url: p.text(),
    fileName: p.string().length(255).nullable(),
    mimeType: p.string().length(100).nullable(),
    durationMs: p.integer().nullable(),
    sizeBytes: p.bigint('number').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type JobFile = InferEntity<typeof JobFile>;
