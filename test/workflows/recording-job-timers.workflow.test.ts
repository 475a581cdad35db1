import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createJobActivities } from '../../activities/jobs.ts';
import type { ActivityDeps } from '../../activities/deps.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import { executeJob, updateJob } from '../../workflows/recording-job.contract.ts';
import { createRecordingJobRun, recordingJobHandle } from '../../src/temporal/starters/recording-job.ts';
import { newAccount } from '../support/api.ts';
import { newMessage } from '../support/jobs.ts';
import { startTimeSkippingEnvironment } from '../support/temporal-worker.ts';

/** A real day: the time-skipping server skips over it. */
const day = 24 * 3600 * 1000;

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(() => orm?.close());

/** The job activities on the real database; events are caught here instead of being published. */
function activitiesCatchingEvents(events: Array<{ type: string; result: Record<string, unknown> }>) {
  // The execute step makes the artist's link, sealed with the suite's key.
  const real = createJobActivities({ orm, secrets: createSecretBox(inject('secretsKey')) } as ActivityDeps);
  return {
    ...real,
    async publishJobEvent(event: { type: string; result: Record<string, unknown> }) {
      events.push(event);
    },
  };
}

describe('recording job timers (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await startTimeSkippingEnvironment();
  }, 180_000);
  afterAll(() => env?.teardown());

  it('emits job.artist_overdue and job.overdue at their dates, and follows dates that move', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const notificationId = await newMessage(account);
    const events: Array<{ type: string; result: Record<string, unknown> }> = [];
    const taskQueue = `timers-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: activitiesCatchingEvents(events),
    });
    const jobId = randomUUID();
    const start = await env.currentTimeMs();

    await worker.runUntil(async () => {
      await createRecordingJobRun({ client: env.client, taskQueue }, {
        jobId,
        accountId: account.accountId,
        appId: account.appId,
        create: {
          notificationId,
          title: 'Timers',
          richPushLevel: 'TORSO',
          artist: 'artist@example.com',
          favourite: 0,
          jobType: 'RICHPUSH',
          isStock: 0,
          artistDueDate: start + 2 * day,
          dueDate: start + 4 * day,
        },
      });
      const handle = recordingJobHandle(env, jobId);
      await handle.executeUpdate(executeJob);

      const slack = day / 4;
      await env.sleep(2 * day + slack);
      expect(events.map((event) => event.type)).toEqual(['job.assigned', 'job.artist_overdue']);

      // Moving the due date later moves its timer: nothing at day 4, job.overdue at day 6.
      await handle.executeUpdate(updateJob, { args: [{ dueDate: start + 6 * day }] });
      await env.sleep(2 * day);
      expect(events.map((event) => event.type)).toEqual(['job.assigned', 'job.artist_overdue']);
      await env.sleep(2 * day);
      expect(events.map((event) => event.type)).toEqual(['job.assigned', 'job.artist_overdue', 'job.overdue']);
      expect(events[2]!.result).toMatchObject({ jobId, status: 'ASSIGNED', dueDate: start + 6 * day });
    });
  });
});
