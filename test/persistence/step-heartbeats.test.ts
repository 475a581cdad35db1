import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAbTestActivities } from '../../activities/abtests.ts';
import { createCampaignActivities } from '../../activities/campaigns.ts';
import type { ActivityDeps } from '../../activities/deps.ts';
import { createIngestActivities } from '../../activities/ingest.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';

// The steps their workflows schedule with a 10 s heartbeat timeout (test/architecture/activity-timeouts.test.ts holds
// the options) must heartbeat as they start and while they run, however they end: one that did not would be timed
// out and retried after 10 s of a long snapshot or count.

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(() => orm?.close());

/** The activities with only what these steps touch: the database (the rest is never reached for unknown ids). */
const deps = () => ({ orm, delivery: inject('delivery') }) as unknown as ActivityDeps;

/** How many heartbeats `step` sent, whether it answered or failed. */
async function heartbeatsOf(step: () => Promise<unknown>): Promise<number> {
  const env = new MockActivityEnvironment();
  let beats = 0;
  env.on('heartbeat', () => beats++);
  await env.run(step).catch(() => undefined);
  return beats;
}

describe('the short steps of sends, A/B tests and ingest batches', () => {
  const unknown = '00000000-0000-4000-8000-000000000000';
  const campaign = () => createCampaignActivities(deps());
  const abTest = () => createAbTestActivities(deps());
  const steps: Record<string, () => Promise<unknown>> = {
    readCampaignMessage: () => campaign().readCampaignMessage({ notificationId: unknown }),
    beginCampaignSend: () => campaign().beginCampaignSend({ notificationId: unknown, filterId: unknown, playTime: 0 }),
    readCampaignCounts: () => campaign().readCampaignCounts({ notificationId: unknown }),
    finishCampaignSend: () => campaign().finishCampaignSend({ notificationId: unknown, state: 'FAILED', reason: 'test' }),
    beginAbTest: () => abTest().beginAbTest({ testId: unknown }),
    readAbTestResults: () => abTest().readAbTestResults({ testId: unknown }),
    decideAbTest: () => abTest().decideAbTest({ testId: unknown }),
    completeAbTest: () => abTest().completeAbTest({ testId: unknown }),
    endAbTest: () => abTest().endAbTest({ testId: unknown, state: 'FAILED', reason: 'test' }),
    failInboundEvents: () => createIngestActivities(deps()).failInboundEvents({ eventIds: [], reason: 'test' }),
  };

  it.each(Object.keys(steps))('%s heartbeats', async (name) => {
    expect(await heartbeatsOf(steps[name]!)).toBeGreaterThanOrEqual(1);
  });
});
