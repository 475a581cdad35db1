import { WorkflowNotFoundError } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { deliveryBatchWorkflowId } from '../../workflows/deliver-batch.contract.ts';
import { newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { experienceDefinition, publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned } from '../support/ingest.ts';
import type { Responder } from '../support/receiver.ts';
import { temporalClient } from '../support/temporal.ts';
import { newEndpoint, waitForDeliveries } from '../support/webhooks.ts';

// An experience's webhook action, routed by an ingest chunk, is attempted by that chunk as soon as it commits (ADR 0027);
// what that attempt does not settle goes on in a deliverBatch run, on the usual schedule. A live run's end sends what
// it announces the same way, from its end step (ADR 0061).
// On the suite's task queue, a relay woken by any other publish (or its poll) may claim the delivery between the
// step's commit and its own claim, and send it in a run instead: both paths are correct, so these tests assert what
// holds on either. That the step itself makes the first attempt, and then starts no run, is checked where no relay
// can race it: test/persistence/process-inbound-events.test.ts and deliver-immediately.test.ts.

let temporal: Awaited<ReturnType<typeof temporalClient>>;
beforeAll(async () => {
  temporal = await temporalClient();
});
afterAll(() => temporal?.close());

/**
 * The delivery was sent by `writer`, the run whose step wrote it (which then started no delivery run for it: its
 * batch is marked started and has no run), or else by the relay's run for the batch it claimed first.
 */
async function expectSentBy(delivery: { deliveryId: string; workflowId: string }, writer: RegExp | string) {
  const [row] = await query<{ batch_id: string; started_at: Date | null }>(
    'select d.batch_id, b.started_at from deliveries d join delivery_batches b on b.id = d.batch_id where d.id = $1',
    [delivery.deliveryId],
  );
  const batchRun = deliveryBatchWorkflowId(row!.batch_id);
  if (delivery.workflowId === batchRun) return; // the relay claimed it first
  expect(delivery.workflowId).toMatch(writer);
  expect(row!.started_at).not.toBeNull();
  await expect(temporal.client.workflow.getHandle(batchRun).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
}

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
  it('is delivered in one attempt, made by the ingest run (then with no delivery run of its own) or a relay', { timeout: 60_000 }, async (t) => {
    const { delivery, receiver } = await signupFlow(t);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    await expectSentBy(delivery, /^ingest-batch:ibt_/);
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

  it('fails at once when the receiver rejects it: one attempt, by the ingest run (then without a run) or a relay', { timeout: 60_000 }, async (t) => {
    const { delivery, receiver } = await signupFlow(t, () => ({ status: 400, body: 'no' }));
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 1, failureReason: expect.stringContaining('HTTP 400') });
    expect(attemptsOf(delivery)).toEqual([[1, 'rejected']]);
    await expectSentBy(delivery, /^ingest-batch:ibt_/);
    expect(receiver.requests).toHaveLength(1);
  });

  it('is sent by a live run’s end step (or a relay): its exit goal and its end, each in one attempt', { timeout: 60_000 }, async (t) => {
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
      expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1 });
      expect(attemptsOf(delivery)).toEqual([[1, 'delivered']]);
      await expectSentBy(delivery, waiting.workflowId);
    }
    expect(endpoint.receiver.requests.map((request) => JSON.parse(request.body).type).sort()).toEqual(['experience.ended', 'experience.goal.reached']);
  });
});
