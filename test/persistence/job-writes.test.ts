import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyJobAction } from '../../src/domain/jobs/apply-job-action.ts';
import { createJobRecord } from '../../src/domain/jobs/create-job-record.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import { newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { fileRow } from '../support/files.ts';
import { newMessage, sampleJob } from '../support/jobs.ts';

// A job step's write is an activity, which may run again: after a worker died before its completion was recorded,
// the retry runs the write again with the same transition id. These are the writes' answers to that second run.

let orm: Orm;
const secrets = createSecretBox(inject('secretsKey'));
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(() => orm?.close());

async function newJobRecord() {
  const account = await newAccount();
  const notificationId = await newMessage(account);
  const { appId: _appId, ...fields } = sampleJob(account, notificationId);
  const input = { ...fields, isStock: 0, jobId: randomUUID(), accountId: account.accountId, appId: account.appId, notificationId, transitionId: randomUUID() };
  return { input, account, created: await createJobRecord(orm.em.fork(), input) };
}

describe('a job step written twice under one transition id', () => {
  it('creates the job once and answers the second create with the stored job; another transition id is a conflict', async () => {
    const { input, created } = await newJobRecord();
    await expect(createJobRecord(orm.em.fork(), input)).resolves.toEqual(created);
    expect(await query('select 1 from jobs where id = $1', [input.jobId])).toHaveLength(1);
    await expect(createJobRecord(orm.em.fork(), { ...input, transitionId: randomUUID() })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('applies a step once, and the next step under its own id', async () => {
    const { input, account } = await newJobRecord();
    const jobId = input.jobId;
    await applyJobAction(orm.em.fork(), { jobId, transitionId: randomUUID(), action: 'execute' }, secrets);
    const file = await fileRow(account);
    const submit = { jobId, transitionId: randomUUID(), action: 'submitRecording' as const, fileId: randomUUID(), recording: file };
    const first = await applyJobAction(orm.em.fork(), submit, secrets);
    await expect(applyJobAction(orm.em.fork(), submit, secrets)).resolves.toEqual(first);
    expect(first.recordings).toMatchObject([{ fileId: file.fileId, status: 'ready' }]);
    expect(await query('select submission_id from files where job_id = $1', [jobId])).toEqual([{ submission_id: submit.fileId }]);

    // The same action under a new transition id is a second submission, as a second call would be: of another file.
    await expect(applyJobAction(orm.em.fork(), { ...submit, transitionId: randomUUID(), fileId: randomUUID() }, secrets)).rejects.toMatchObject({ code: 'file_in_use' });
    const again = await applyJobAction(orm.em.fork(), { ...submit, transitionId: randomUUID(), fileId: randomUUID(), recording: await fileRow(account) }, secrets);
    expect(again.recordings).toHaveLength(2);
  });
});

describe('the take limit under the job’s lock', () => {
  it('lets one of two submissions at once take the 20th place, and refuses the other too_many_takes', async () => {
    const { input, account } = await newJobRecord();
    const jobId = input.jobId;
    await applyJobAction(orm.em.fork(), { jobId, transitionId: randomUUID(), action: 'execute' }, secrets);
    const submit = async () => ({ jobId, transitionId: randomUUID(), action: 'submitRecording' as const, fileId: randomUUID(), recording: await fileRow(account) });
    for (let index = 0; index < 19; index += 1) await applyJobAction(orm.em.fork(), await submit(), secrets);

    const outcomes = await Promise.allSettled([applyJobAction(orm.em.fork(), await submit(), secrets), applyJobAction(orm.em.fork(), await submit(), secrets)]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const [refused] = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(refused?.reason).toMatchObject({ code: 'too_many_takes' });
    expect(await query('select count(*)::int as takes from files where job_id = $1 and submission_id is not null', [jobId])).toEqual([{ takes: 20 }]);
  });
});
