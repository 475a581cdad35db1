import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { experienceDefinition, publishedExperience } from '../support/experiences.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';

// The two routes the console's Flows and Deliveries pages added to the public API, at their edges: what they refuse
// and what an empty account answers. What they count and redeliver on a live stack: test/console/flows-deliveries.test.ts.

let account: TestAccount;
let other: TestAccount;
let endpoint: EndpointFixture;
let experienceId: string;

beforeAll(async () => {
  [account, other] = await Promise.all([newAccount(), newAccount()]);
  endpoint = await newEndpoint(account);
  const published = await publishedExperience(account, experienceDefinition({ nodes: [{ id: 'pause', type: 'wait', seconds: 60, next: 'done' }, { id: 'done', type: 'exit' }] }));
  experienceId = published.experienceId;
}, 60_000);

afterAll(() => endpoint?.receiver.close());

describe('GET …/experiences/{experienceId}/node-counts', () => {
  const path = (version = '') => `/accounts/${account.accountId}/experiences/${experienceId}/node-counts${version}`;

  it('lists every node of the definition with zeros before any run', async () => {
    const answer = await call('GET', path(), { token: account.apiKey });
    expect(answer.status).toBe(200);
    const zero = { entered: 0, waiting: 0, passed: 0, stoppedHere: 0, goalReached: 0 };
    expect(answer.body).toEqual({ experienceId, version: null, runs: 0, nodes: [{ nodeId: 'pause', ...zero }, { nodeId: 'done', ...zero }], goals: [] });
    expect((await call('GET', path('?version=1'), { token: account.apiKey })).body.version).toBe(1);
  });

  it('refuses a version that is no whole number (400), and another account’s experience (404)', async () => {
    const bad = await call('GET', path('?version=first'), { token: account.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const foreign = await call('GET', `/accounts/${other.accountId}/experiences/${experienceId}/node-counts`, { token: other.apiKey });
    expect(foreign.status).toBe(404);
  });
});

describe('POST …/endpoints/{endpointId}/recover', () => {
  const recover = (body: unknown, token = account.apiKey, endpointId = endpoint.endpointId, accountId = account.accountId) =>
    call('POST', `/accounts/${accountId}/endpoints/${endpointId}/recover`, { token, body });

  it('answers that nothing was recovered when nothing failed', async () => {
    const answer = await recover({ since: new Date(Date.now() - 3600_000).toISOString() });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ recovered: 0, deliveries: [], more: false });
  });

  it('refuses a since that is no time, or a body with more (400)', async () => {
    for (const body of [{ since: 'yesterday' }, {}, { since: new Date().toISOString(), status: 'failed' }]) {
      const answer = await recover(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('validation_failed');
    }
  });

  it('refuses another account’s endpoint (404) and a disabled one (409 invalid_state)', async () => {
    const since = new Date().toISOString();
    expect((await recover({ since }, other.apiKey, endpoint.endpointId, other.accountId)).status).toBe(404);
    const disabled = await call('PATCH', `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}`, { token: account.apiKey, body: { status: 'disabled' } });
    expect(disabled.status).toBe(200);
    const answer = await recover({ since });
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('invalid_state');
  });
});
