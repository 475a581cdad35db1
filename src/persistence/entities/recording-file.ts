import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';
import { App } from './app.ts';
import { Job } from './job.ts';

export const fileStatuses = ['processing', 'ready', 'rejected'] as const;
export type FileStatus = (typeof fileStatuses)[number];

/** How a file arrived: uploaded with the account's key, by the artist through their link, or fetched from a URL. */
export const fileSources = ['upload', 'artist', 'url'] as const;
export type FileSource = (typeof fileSources)[number];

/**
 * A recording file the service holds (docs/recordings.md): its original, kept as sent, and once processed its
 * delivery file, which devices play from `url`. A file of a job is one of its takes once submitted (`submissionId`:
 * the id the job's workflow gave that SUBMITTED step). `fileName` is the name the client gave, kept for display only:
 * storage keys are made from the id.
 */
export const RecordingFile = defineEntity({
  name: 'RecordingFile',
  tableName: 'files',
  properties: {
    id: p.string().length(40).primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    appId: () => p.manyToOne(App).mapToPk().fieldName('app_id'),
    jobId: () => p.manyToOne(Job).mapToPk().fieldName('job_id').nullable(),
    source: p.enum(fileSources),
    /** Where a `url` file is fetched from, by the worker, under the outbound address policy. */
    sourceUrl: p.text().nullable(),
    status: p.enum(fileStatuses),
    /** Why it was rejected: one of the media toolkit's reasons (`not_audio`, `too_long`, …), `unreachable` or `cancelled`. */
    reason: p.string().length(32).nullable(),
    /** One sentence saying what was found. */
    detail: p.text().nullable(),
    fileName: p.string().length(255).nullable(),
    /** The Content-Type the upload declared, when it declared one. */
    declaredType: p.string().length(100).nullable(),
    /** The type the bytes show (`wav`, `mp3`, …). */
    detectedType: p.string().length(16).nullable(),
    /** The original's size and SHA-256. */
    sizeBytes: p.bigint('number').nullable(),
    sha256: p.string().length(64).nullable(),
    /** The delivery file's length. */
    durationMs: p.integer().nullable(),
    /** The original's sample rate and channels. */
    sampleRate: p.integer().nullable(),
    channels: p.integer().nullable(),
    /** The delivery file's type (`audio/mp4`) once ready. */
    contentType: p.string().length(100).nullable(),
    /** The original's integrated loudness (its mono downmix), as measured before normalising. */
    loudnessLufs: p.double().$type<number>().nullable(),
    /** 200 peaks of the delivery file, 0 to 1, for the console. */
    waveform: storedJson(z.array(z.number())).nullable(),
    originalKey: p.string().length(512),
    deliveryKey: p.string().length(512).nullable(),
    deliverySizeBytes: p.bigint('number').nullable(),
    /** The playback URL devices fetch without a key: `{PUBLIC_URL}/recordings/{id}/{signature}.m4a`. */
    url: p.text(),
    submissionId: p.uuid().nullable().unique(),
    submittedAt: p.datetime().nullable(),
    /** When its processing run was started; unset, the worker's recovery starts it (a start that failed after the commit). */
    runStartedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    processedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ['accountId', 'createdAt', 'id'] },
    { properties: ['jobId', 'createdAt', 'id'] },
    { properties: ['status', 'createdAt'] },
  ],
});

export type RecordingFile = InferEntity<typeof RecordingFile>;
