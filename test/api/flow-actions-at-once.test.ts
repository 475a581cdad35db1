import { describe, expect, it, type TestContext } from 'vitest';
import { newAccount } from '../support/api.ts';
import { experienceDefinition, publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned } from '../support/ingest.ts';
import type { Responder } from '../support/receiver.ts';
import { newEndpoint, waitForDeliveries } from '../support/webhooks.ts';

// A flow's webhook action, routed by an ingest chunk, is attempted by that chunk as soon as it commits (ADR 0027);
// what that attempt does not settle goes on in a deliverBatch run, on the usual schedule. A live run's end sends what
// it announces the same way, from its end step (ADR 0061).

/** A published flow that fires `experience.action` at its trigger, `signup`, and ends; its endpoint answers as told. */
async function signupFlow(t: Pick<TestContext, 'onTestFinished'>, responder?: Responder) {
  const account = await newAccount();
  const connection = await newConnection(account);
  const endpoint = await newEndpoint(account, ['experience.action'], responder);
  t.onTestFinished(() => endpoint.receiver.close());
  await publishedExperience(account, experienceDefinition({ nodes: [{ id: 'hello', type: 'webhook', result: { step: 'hello' }, next: 'done' }, { id: 'done', type: 'exit' }] }));
  const answer = await postSigned(connection, directEvent({ eventType: 'signup', clientUserId: 'u_at_once' }));
  expect(answer.status).toBe(202);
  const settled = (items: Array<{ status: string }>) => items.length === 1 && items[0]!.status !== 'pending';
  const [delivery] = await waitForDeliveries(account, endpoint.endpointId, settled, 30_000);
  return { delivery, receiver: endpoint.receiver };
}

const attemptsOf = (delivery: { attempts: Array<{ attemptNumber: number; outcome: string }> }) =>
  delivery.attempts.map(({ attemptNumber, outcome }) => [attemptNumber, outcome]).sort(([a], [b]) => Number(a) - Number(b));

describe('a flow action sent by the chunk that routed it', () => {
  it('is delivered in one attempt, made by the ingest run, with no delivery run of its own', { timeout: 60_000 }, async (t) => {
    const { delivery, receiver } = await signupFlow(t);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1, workflowId: expect.stringMatching(/^ingest-batch:/) });
    expect(attemptsOf(delivery)).toEqual([[1, 'delivered']]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('goes on in a delivery run after a failed first attempt, numbered after it, under the same webhook-id', { timeout: 60_000 }, async (t) => {
    const { delivery, receiver } = await signupFlow(t, (_request, index) => (index === 0 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' }));
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2, workflowId: expect.stringMatching(/^deliveries:dbt_/) });
    expect(attemptsOf(delivery)).toEqual([
      [1, 'retry'],
      [2, 'delivered'],
    ]);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
  });

  it('leaves a receiver that does not answer in time to the delivery run, which sends it again', { timeout: 60_000 }, async (t) => {
    const { delivery, receiver } = await signupFlow(t, (_request, index) => ({ status: 200, body: 'ok', delayMs: index === 0 ? 4_000 : 0 }));
    expect(delivery).toMatchObject({ status: 'succeeded', workflowId: expect.stringMatching(/^deliveries:dbt_/) });
    expect(attemptsOf(delivery)[0]).toEqual([1, 'error']);
    expect(attemptsOf(delivery).at(-1)).toEqual([2, 'delivered']);
    expect(receiver.requests[0]!.abortedAt).toBeDefined();
  });

  it('fails at once, without a run, when the receiver rejects it', { timeout: 60_000 }, async (t) => {
    const { delivery, receiver } = await signupFlow(t, () => ({ status: 400, body: 'no' }));
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 1, workflowId: expect.stringMatching(/^ingest-batch:/), failureReason: expect.stringContaining('HTTP 400') });
    expect(receiver.requests).toHaveLength(1);
  });

  it('is sent by a live run’s end step: its exit goal and its end, each in one attempt, naming the run', { timeout: 60_000 }, async (t) => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const endpoint = await newEndpoint(account, ['experience.goal.reached', 'experience.ended']);
    t.onTestFinished(() => endpoint.receiver.close());
    const experience = await publishedExperience(
      account,
      experienceDefinition({
        goals: [{ id: 'bought', eventType: 'purchase', conditions: null, exit: true }],
        nodes: [{ id: 'linger', type: 'wait', seconds: 86_400, next: 'done' }, { id: 'done', type: 'exit' }],
      }),
    );
    expect((await postSigned(connection, directEvent({ eventType: 'signup', clientUserId: 'u_goal_at_once' }))).status).toBe(202);
    const [waiting] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.currentNodeId === 'linger' && runs[0]?.status === 'running');
    expect((await postSigned(connection, directEvent({ eventType: 'purchase', clientUserId: 'u_goal_at_once' }))).status).toBe(202);
    const settled = (items: Array<{ status: string }>) => items.length === 2 && items.every((item) => item.status !== 'pending');
    const deliveries = await waitForDeliveries(account, endpoint.endpointId, settled, 30_000);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1, workflowId: waiting.workflowId });
      expect(attemptsOf(delivery)).toEqual([[1, 'delivered']]);
    }
    expect(endpoint.receiver.requests.map((request) => JSON.parse(request.body).type).sort()).toEqual(['experience.ended', 'experience.goal.reached']);
  });
});
