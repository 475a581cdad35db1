import { describe, expect, it, type TestContext } from 'vitest';
import { newAccount, type TestAccount } from '../support/api.ts';
import { verifyWith } from '../support/deliveries.ts';
import { experienceDefinition, publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned, waitForEvent, type ConnectionFixture } from '../support/ingest.ts';
import { newProviderConnection, originOf } from '../support/providers.ts';
import { startReceiver } from '../support/receiver.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';

const experienceEvents = ['experience.action', 'experience.goal.reached', 'experience.ended', 'experience.completed'];

/** An account with a direct connection and an endpoint subscribed to every experience event. */
async function setUp(t: Pick<TestContext, 'onTestFinished'>): Promise<{ account: TestAccount; connection: ConnectionFixture; endpoint: EndpointFixture }> {
  const account = await newAccount();
  const connection = await newConnection(account);
  const endpoint = await newEndpoint(account, experienceEvents);
  t.onTestFinished(() => endpoint.receiver.close());
  return { account, connection, endpoint };
}

const send = async (connection: ConnectionFixture, overrides: Record<string, unknown>) => {
  const event = directEvent(overrides);
  const answer = await postSigned(connection, event);
  expect(answer.status).toBe(202);
  return event;
};

/** The envelopes the endpoint has received so far, verified. */
const envelopes = (endpoint: EndpointFixture) => endpoint.receiver.requests.map((request) => verifyWith(endpoint.secret, request));

describe('experience runs', () => {
  it('trigger → webhook → goal → ended, with signed envelopes and the path', { timeout: 60_000 }, async (t) => {
    const { account, connection, endpoint } = await setUp(t);
    const experience = await publishedExperience(
      account,
      experienceDefinition({
        goals: [{ id: 'purchased', eventType: 'purchase', conditions: null, exit: true }],
        nodes: [
          { id: 'welcome', type: 'webhook', result: { step: 'welcome', plan: '{{event.attributes.plan}}' }, next: 'await' },
          { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 600, next: 'done', timeoutNext: 'done' },
          { id: 'done', type: 'exit' },
        ],
      }),
    );
    await send(connection, { eventType: 'signup', clientUserId: 'u_experience_1', attributes: { plan: 'pro' } });
    await endpoint.receiver.waitForRequests(1);
    expect(envelopes(endpoint)[0]).toMatchObject({
      type: 'experience.action',
      experienceId: experience.experienceId,
      accountId: account.accountId,
      data: { clientUserId: 'u_experience_1', visitorId: expect.any(String), attributes: { plan: 'pro' }, result: { step: 'welcome', plan: 'pro', nodeId: 'welcome' } },
    });

    const [waiting] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.currentNodeId === 'await' && runs[0]?.path.length === 1);
    expect(waiting).toMatchObject({ status: 'running', clientUserId: 'u_experience_1', version: 1, endedAt: null });

    const purchase = await send(connection, { eventType: 'purchase', clientUserId: 'u_experience_1' });
    const [ended] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.status !== 'running');
    expect(ended).toMatchObject({ status: 'goal_reached', endReason: 'goal_reached', currentNodeId: 'await', endedAt: expect.any(String) });
    expect(ended.path.map((step: { nodeId: string }) => step.nodeId)).toEqual(['welcome', 'goal:purchased']);

    await endpoint.receiver.waitForRequests(3);
    const [action, goal, end] = ['experience.action', 'experience.goal.reached', 'experience.ended'].map((type) => envelopes(endpoint).find((envelope) => envelope.type === type));
    const processed = await waitForEvent(account, purchase.messageId, 'PROCESSED');
    expect(goal).toMatchObject({ data: { clientUserId: 'u_experience_1', result: { goal: 'purchased', eventType: 'purchase', eventId: processed.eventId } } });
    expect(end).toMatchObject({ experienceId: experience.experienceId, data: { clientUserId: 'u_experience_1', result: { reason: 'goal_reached', nodeId: 'await' } } });
    expect(new Set([action.id, goal.id, end.id]).size).toBe(3);
    expect(processed.routingOutcome).toMatchObject({ deliveredTo: [ended.runId], startedRuns: [] });
  });

  it('takes the else branch of a condition on the visitor, read when the condition runs', { timeout: 60_000 }, async (t) => {
    const { account, connection } = await setUp(t);
    const experience = await publishedExperience(
      account,
      experienceDefinition({
        nodes: [
          { id: 'check', type: 'condition', if: { field: 'visitor.attributes.country', op: 'in', value: ['DE', 'AT'] }, then: 'yes', else: 'no' },
          { id: 'yes', type: 'exit' },
          { id: 'no', type: 'exit' },
        ],
      }),
    );
    await send(connection, { eventType: 'signup', clientUserId: 'u_fr', attributes: { country: 'FR' } });
    const [run] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.status === 'completed');
    expect(run.path.map((step: { nodeId: string; outcome: string }) => `${step.nodeId}:${step.outcome}`)).toEqual(['check:else', 'no:exit']);
    expect(run).toMatchObject({ currentNodeId: 'no', endReason: 'completed' });
  });

  it('follows timeoutNext when the awaited event does not come in time', { timeout: 60_000 }, async (t) => {
    const { account, connection } = await setUp(t);
    const experience = await publishedExperience(
      account,
      experienceDefinition({
        nodes: [
          { id: 'await', type: 'waitForEvent', eventType: 'app.opened', conditions: null, timeoutSeconds: 1, next: 'opened', timeoutNext: 'late' },
          { id: 'opened', type: 'exit' },
          { id: 'late', type: 'exit' },
        ],
      }),
    );
    await send(connection, { eventType: 'signup', clientUserId: 'u_timeout' });
    const [run] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.status === 'completed');
    expect(run.path.map((step: { nodeId: string; outcome: string }) => `${step.nodeId}:${step.outcome}`)).toEqual(['await:timeout', 'late:exit']);
  });

  it('runs an anonymous event to its end in routing and sends experience.completed without a clientUserId key', { timeout: 60_000 }, async (t) => {
    const { account, connection, endpoint } = await setUp(t);
    const experience = await publishedExperience(
      account,
      experienceDefinition({ nodes: [{ id: 'hello', type: 'webhook', result: { who: '{{visitor.clientUserId}}' }, next: 'done' }, { id: 'done', type: 'exit' }] }),
    );
    const signup = await send(connection, { eventType: 'signup', attributes: { page: '/pricing' } });
    const [run] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.status === 'completed');
    const processed = await waitForEvent(account, signup.messageId, 'PROCESSED');
    // Nothing in this experience needs time to pass: routing took every step when it entered the run, with no workflow.
    expect(processed.routingOutcome.startedRuns).toEqual([run.runId]);
    expect(run).toMatchObject({ visitorId: null, clientUserId: null, workflowId: null });
    await endpoint.receiver.waitForRequests(2);
    const action = envelopes(endpoint).find((envelope) => envelope.type === 'experience.action');
    const completed = envelopes(endpoint).find((envelope) => envelope.type === 'experience.completed');
    expect(action.data).toEqual({ visitorId: null, attributes: {}, result: { who: null, nodeId: 'hello' } });
    expect(completed.data).toEqual({ visitorId: null, attributes: {}, result: { reason: 'completed', nodeId: 'done' } });
    expect('clientUserId' in completed.data).toBe(false);
    expect(envelopes(endpoint).some((envelope) => envelope.type === 'experience.ended')).toBe(false);
  });

  it('calls Segment’s API from a provider node: Basic auth with the write key, the track body, a stable messageId', { timeout: 60_000 }, async (t) => {
    const { account, connection } = await setUp(t);
    const segment = await startReceiver(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"success":true}' }));
    t.onTestFinished(() => segment.close());
    const writeKey = 'wk_experience_test_key';
    const provider = await newProviderConnection(account, { writeKey, outboundUrl: originOf(segment.url) });
    const experience = await publishedExperience(
      account,
      experienceDefinition({
        nodes: [
          { id: 'seg', type: 'provider', connectionId: provider.connectionId, call: 'track', event: 'Welcome Nudge', properties: { plan: '{{visitor.attributes.plan}}' }, next: 'done' },
          { id: 'done', type: 'exit' },
        ],
      }),
    );
    await send(connection, { eventType: 'signup', clientUserId: 'u_seg', attributes: { plan: 'pro' } });
    const [request] = await segment.waitForRequests(1);
    expect(request!.path).toBe('/v1/track');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`);
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ userId: 'u_seg', event: 'Welcome Nudge', properties: { plan: 'pro' }, messageId: expect.any(String), timestamp: expect.any(String) });
    const [run] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.status === 'completed');
    expect(run.path[0]).toMatchObject({ nodeId: 'seg', type: 'provider', outcome: 'sent (HTTP 200)' });
  });

  it('records a provider’s refusal (4xx) on the path and goes on', { timeout: 60_000 }, async (t) => {
    const { account, connection } = await setUp(t);
    const segment = await startReceiver(() => ({ status: 400, body: '{"error":"bad event"}' }));
    t.onTestFinished(() => segment.close());
    const provider = await newProviderConnection(account, { writeKey: 'wk_refused', outboundUrl: originOf(segment.url) });
    const experience = await publishedExperience(
      account,
      experienceDefinition({
        nodes: [
          { id: 'seg', type: 'provider', connectionId: provider.connectionId, call: 'identify', properties: { plan: 'x' }, next: 'done' },
          { id: 'done', type: 'exit' },
        ],
      }),
    );
    await send(connection, { eventType: 'signup', clientUserId: 'u_refused' });
    const [run] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.status === 'completed');
    expect(run.path[0]).toMatchObject({ nodeId: 'seg', outcome: expect.stringMatching(/^failed: .*400/) });
    expect(segment.requests).toHaveLength(1);
    expect(segment.requests[0]!.path).toBe('/v1/identify');
  });
});
