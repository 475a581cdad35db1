import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startSelfTest } from '../../src/temporal/starters/self-test.ts';
import { recordHistoryIfAsked } from '../support/temporal.ts';
import { connectTestEnvironment, createTestWorker } from '../support/temporal-worker.ts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await connectTestEnvironment();
});
afterAll(() => env?.teardown());

describe('selfTest workflow', () => {
  it('returns what its activity read, retrying the activity on failure', async () => {
    let calls = 0;
    const activities = {
      async readDatabaseClock() {
        calls++;
        if (calls === 1) throw new Error('database briefly unreachable');
        return '2026-01-02T03:04:05.000Z';
      },
    };
    const { worker, taskQueue } = await createTestWorker(env, activities);
    const result = await worker.runUntil(async () => {
      const handle = await startSelfTest({ client: env.client, taskQueue }, `wf-${taskQueue}`);
      const value = await handle.result();
      await recordHistoryIfAsked(handle, 'self-test');
      return value;
    });
    expect(result).toEqual({ workflowId: `self-test:wf-${taskQueue}`, databaseNow: '2026-01-02T03:04:05.000Z' });
    expect(calls).toBe(2);
  });
});
