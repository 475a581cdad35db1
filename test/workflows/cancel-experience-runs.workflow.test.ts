import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelExperienceRunsWorkflowId } from '../../workflows/cancel-experience-runs.contract.ts';
import { startCancelExperienceRuns } from '../../src/temporal/starters/cancel-experience-runs.ts';
import { recordHistoryIfAsked } from '../support/temporal.ts';
import { connectTestEnvironment, createTestWorker } from '../support/temporal-worker.ts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await connectTestEnvironment();
});
afterAll(() => env?.teardown());

describe('cancelExperienceRuns workflow (stub activities)', () => {
  it('pages through the live runs until none is left after the last, and counts them', async () => {
    const pages = [
      { cancelled: 200, lastRunId: 'run_b' },
      { cancelled: 198, lastRunId: 'run_d' },
      { cancelled: 7, lastRunId: null },
    ];
    const asked: Array<string | null> = [];
    const { worker, taskQueue } = await createTestWorker(env, {
      async cancelLiveExperienceRuns(input: { afterRunId: string | null }) {
        asked.push(input.afterRunId);
        return pages[asked.length - 1];
      },
    });
    const experienceId = `exp_${randomUUID()}`;
    const result = await worker.runUntil(async () => {
      await startCancelExperienceRuns({ client: env.client, taskQueue }, { version: 1, accountId: randomUUID(), experienceId });
      // Archiving again starts nothing new.
      await startCancelExperienceRuns({ client: env.client, taskQueue }, { version: 1, accountId: randomUUID(), experienceId });
      const handle = env.client.workflow.getHandle(cancelExperienceRunsWorkflowId(experienceId));
      const done = await handle.result();
      await recordHistoryIfAsked(handle, 'cancel-experience-runs');
      return done;
    });
    expect(result).toEqual({ cancelled: 405 });
    expect(asked).toEqual([null, 'run_b', 'run_d']);
  });
});
