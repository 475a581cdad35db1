import { describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { experienceDefinition, listRuns, publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned, waitForEvent, type ConnectionFixture } from '../support/ingest.ts';
import { postSignedTo } from '../support/signed-ingest.ts';
import { startApiInstance } from '../support/instances.ts';

/** An experience that stays live until cancelled: it waits an hour for an event that never comes. */
/** A goal on the trigger's own type that does not end the run, so a live run hears a later signup. */
const hearsSignup = [{ id: 'again', eventType: 'signup', conditions: null, exit: false }];

const waitingExperience = (reentry: string, goals: unknown[] = hearsSignup) =>
  experienceDefinition({
    entry: { reentry },
    goals,
    nodes: [
      { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 3600, next: 'done', timeoutNext: 'done' },
      { id: 'done', type: 'exit' },
    ],
  });

async function signup(account: TestAccount, connection: ConnectionFixture, clientUserId: string): Promise<any> {
  const event = directEvent({ eventType: 'signup', clientUserId });
  expect((await postSigned(connection, event)).status).toBe(202);
  return waitForEvent(account, event.messageId, 'PROCESSED');
}

const cancel = (account: TestAccount, experienceId: string, runId: string) =>
  call('POST', `/accounts/${account.accountId}/experiences/${experienceId}/runs/${runId}/cancel`, { token: account.apiKey });

describe('experience entry rules', () => {
  it('never: one run per person, ever; a later trigger reaches the live run instead', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const { experienceId } = await publishedExperience(account, waitingExperience('never'));
    const first = await signup(account, connection, 'u_never');
    expect(first.routingOutcome).toMatchObject({ matchedExperiences: [experienceId], startedRuns: [expect.any(String)], deliveredTo: [] });
    const [run] = await listRuns(account, experienceId);
    expect(run.workflowId).toBe(`experience:${experienceId}:${run.visitorId}`);

    const second = await signup(account, connection, 'u_never');
    expect(second.routingOutcome).toMatchObject({ matchedExperiences: [experienceId], startedRuns: [], deliveredTo: [run.runId] });
    expect((await cancel(account, experienceId, run.runId)).status).toBe(200);
    const third = await signup(account, connection, 'u_never');
    expect(third.routingOutcome).toMatchObject({ startedRuns: [], deliveredTo: [] });
    expect(await listRuns(account, experienceId)).toHaveLength(1);
  });

  it('after_exit: a new run only once the person has no live run', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const { experienceId } = await publishedExperience(account, waitingExperience('after_exit'));
    await signup(account, connection, 'u_after');
    const [first] = await listRuns(account, experienceId);
    const blocked = await signup(account, connection, 'u_after');
    expect(blocked.routingOutcome).toMatchObject({ startedRuns: [], deliveredTo: [first.runId] });

    const cancelled = await cancel(account, experienceId, first.runId);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', endReason: 'cancelled' });
    const again = await signup(account, connection, 'u_after');
    expect(again.routingOutcome.startedRuns).toHaveLength(1);
    const runs = await listRuns(account, experienceId);
    expect(runs.map((run) => run.status)).toEqual(['running', 'cancelled']);
    expect(runs[0].workflowId).toBe(`experience:${experienceId}:${first.visitorId}:2`);
    await cancel(account, experienceId, runs[0].runId);
  });

  it('always: a run for every matching event, each also handed to the runs already live that hear it', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const { experienceId } = await publishedExperience(account, waitingExperience('always'));
    const { experienceId: deaf } = await publishedExperience(account, waitingExperience('always', []));
    await signup(account, connection, 'u_always');
    const second = await signup(account, connection, 'u_always');
    const runs = await listRuns(account, experienceId);
    const deafRuns = await listRuns(account, deaf);
    expect(runs.map((run) => run.status)).toEqual(['running', 'running']);
    expect(deafRuns.map((run) => run.status)).toEqual(['running', 'running']);
    // Only the runs with a goal or waitForEvent on signup get the event; the others would do nothing with it.
    expect(second.routingOutcome).toMatchObject({ startedRuns: expect.arrayContaining([runs[0].runId, deafRuns[0].runId]), deliveredTo: [runs[1].runId] });
    for (const run of runs) await cancel(account, experienceId, run.runId);
    for (const run of deafRuns) await cancel(account, deaf, run.runId);
  });

  it('never, under concurrent triggers for one person through two API instances: exactly one run', { timeout: 90_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const { experienceId } = await publishedExperience(account, waitingExperience('never'));
    const other = await startApiInstance();
    try {
      const events = Array.from({ length: 12 }, () => directEvent({ eventType: 'signup', clientUserId: 'u_race' }));
      const answers = await Promise.all(events.map((event, i) => (i % 2 ? postSigned(connection, event) : postSignedTo(other.url, connection, event))));
      expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(202));
      const outcomes = await Promise.all(events.map(async (event) => (await waitForEvent(account, event.messageId, 'PROCESSED')).routingOutcome));
      expect(outcomes.flatMap((outcome) => outcome.startedRuns)).toHaveLength(1);
      const runs = await waitForRuns(account, experienceId, (found) => found.length > 0);
      expect(runs).toHaveLength(1);
      await cancel(account, experienceId, runs[0].runId);
    } finally {
      await other.stop();
    }
  });
});

describe('routing reasons', () => {
  it('names the experience whose trigger conditions did not hold, rather than saying none is triggered', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const proOnly = { eventType: 'signup', conditions: { all: [{ field: 'event.attributes.plan', op: 'eq', value: 'pro' }] } };
    const gated = await publishedExperience(account, { ...waitingExperience('never'), name: 'Pro welcome', trigger: proOnly });

    const free = directEvent({ eventType: 'signup', clientUserId: 'u_free', attributes: { plan: 'free' } });
    expect((await postSigned(connection, free)).status).toBe(202);
    const refused = await waitForEvent(account, free.messageId, 'PROCESSED');
    expect(refused.routingOutcome).toEqual({
      matchedExperiences: [],
      startedRuns: [],
      deliveredTo: [],
      reason: `the trigger conditions of experience "Pro welcome" (${gated.experienceId}) did not hold for this signup event, and the person has no live run`,
    });

    // Beside an experience that matches, the one whose conditions failed is still named.
    const open = await publishedExperience(account, { ...waitingExperience('never'), name: 'Everyone' });
    const another = directEvent({ eventType: 'signup', clientUserId: 'u_free_2', attributes: { plan: 'free' } });
    expect((await postSigned(connection, another)).status).toBe(202);
    const mixed = await waitForEvent(account, another.messageId, 'PROCESSED');
    expect(mixed.routingOutcome).toMatchObject({ matchedExperiences: [open.experienceId], startedRuns: [expect.any(String)], deliveredTo: [] });
    expect(mixed.routingOutcome.reason).toBe(
      `started 1 run(s) of 1 matching experience(s); handed to 0 live run(s); the trigger conditions of experience "Pro welcome" (${gated.experienceId}) did not hold`,
    );
    for (const run of await listRuns(account, open.experienceId)) await cancel(account, open.experienceId, run.runId);

    // An event type no experience listens to keeps its reason.
    const other = directEvent({ eventType: 'unsubscribe', clientUserId: 'u_free' });
    expect((await postSigned(connection, other)).status).toBe(202);
    expect((await waitForEvent(account, other.messageId, 'PROCESSED')).routingOutcome.reason).toBe('no experience is triggered by unsubscribe, and the person has no live run');
  });
});
