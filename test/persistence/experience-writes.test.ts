import { MockActivityEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it, type TestContext } from 'vitest';
import type { ActivityDeps } from '../../activities/deps.ts';
import { createExperienceActivities } from '../../activities/experiences.ts';
import type { RunRef } from '../../src/domain/experiences/run-ref.ts';
import type { EndRunInput } from '../../src/domain/experiences/run-steps.ts';
import { createWorkerMetrics } from '../../src/metrics/worker-metrics.ts';
import { createOutboundHttpClient } from '../../src/outbound/http-client.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { parseAllowCidrs } from '../../src/security/ip-policy.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import { newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { experienceDefinition, publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned } from '../support/ingest.ts';
import { newEndpoint } from '../support/webhooks.ts';

// An experience run's writes are activities, which may run again: a retry after a worker died before the completion
// was recorded runs the write again. These are the writes' answers to that second run.

let orm: Orm;
const http = createOutboundHttpClient({ allow: parseAllowCidrs('127.0.0.0/8,::1/128'), timeoutMs: 5_000, ca: inject('receiverCert') });
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(async () => {
  http.close();
  await orm?.close();
});

/** What a run has published: its events and their deliveries, counted in Postgres. */
async function published(accountId: string): Promise<{ events: string[]; deliveries: number }> {
  const events = await query<{ type: string }>('select type from outbound_events where account_id = $1 order by type', [accountId]);
  const [deliveries] = await query<{ n: string }>('select count(*) as n from deliveries d join outbound_events e on e.id = d.event_id where e.account_id = $1', [accountId]);
  return { events: events.map((event) => event.type), deliveries: Number(deliveries!.n) };
}

describe('an experience run’s writes run twice', () => {
  it('publish no second action, goal or end, and leave the ended run as it was', { timeout: 60_000 }, async (t: Pick<TestContext, 'onTestFinished'>) => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const endpoint = await newEndpoint(account, ['experience.action', 'experience.goal.reached', 'experience.ended']);
    t.onTestFinished(() => endpoint.receiver.close());
    const experience = await publishedExperience(
      account,
      experienceDefinition({
        goals: [{ id: 'purchased', eventType: 'purchase', conditions: null, exit: true }],
        nodes: [
          { id: 'welcome', type: 'webhook', result: { step: 'welcome' }, next: 'await' },
          { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 600, next: 'done', timeoutNext: 'done' },
          { id: 'done', type: 'exit' },
        ],
      }),
    );
    expect((await postSigned(connection, directEvent({ eventType: 'signup', clientUserId: 'u_twice' }))).status).toBe(202);
    await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.currentNodeId === 'await');
    const purchase = directEvent({ eventType: 'purchase', clientUserId: 'u_twice' });
    expect((await postSigned(connection, purchase)).status).toBe(202);
    const [ended] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.status === 'goal_reached');
    const before = await published(account.accountId);
    expect(before).toEqual({ events: ['experience.action', 'experience.ended', 'experience.goal.reached'], deliveries: 3 });

    const [row] = await query('select id, account_id, experience_id, visitor_id, client_user_id, trigger_event_id, current_node_id, path, ended_at from experience_runs where id = $1', [ended.runId]);
    const run: RunRef = {
      runId: row.id,
      accountId: row.account_id,
      experienceId: row.experience_id,
      visitorId: row.visitor_id,
      clientUserId: row.client_user_id,
      triggerEventId: row.trigger_event_id,
    };
    const writes = createExperienceActivities({
      orm,
      temporal: { taskQueue: inject('taskQueue') },
      delivery: inject('delivery'),
      http,
      secrets: createSecretBox(inject('secretsKey')),
      metrics: createWorkerMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
    } as ActivityDeps);
    // The end sends what it publishes from its activity (ADR 0061), so it runs as one.
    const activity = new MockActivityEnvironment();
    await writes.enterExperienceRun({ runId: run.runId });
    await writes.fireExperienceWebhook({ run, nodeId: 'welcome', endpointId: null, result: { step: 'welcome' } });
    await writes.publishExperienceGoal({ run, goalId: 'purchased', eventType: 'purchase', eventId: 'iev_any' });
    // A run's end announces the exit goal it ended on (ADR 0061).
    const goals = [{ goalId: 'purchased', eventType: 'purchase', eventId: 'iev_any' }];
    const end: EndRunInput = { run, status: 'goal_reached', endReason: 'goal_reached', detail: null, currentNodeId: 'await', path: row.path, endedAt: new Date().toISOString(), goals };
    await activity.run(() => writes.endExperienceRun(end));

    expect(await published(account.accountId)).toEqual(before);
    const [after] = await query('select status, current_node_id, path, ended_at from experience_runs where id = $1', [run.runId]);
    expect(after).toEqual({ status: 'goal_reached', current_node_id: row.current_node_id, path: row.path, ended_at: row.ended_at });
  });
});
