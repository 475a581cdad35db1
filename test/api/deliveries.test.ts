import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { call, newAccount } from '../support/api.ts';
import { newEndpoint, waitForDeliveries, type EndpointFixture } from '../support/webhooks.ts';

const fixtures: EndpointFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.receiver.close()));
});
const track = (fixture: EndpointFixture) => (fixtures.push(fixture), fixture);

describe('outbound delivery', () => {
  it('delivers a signed test event that a Standard Webhooks receiver verifies', async () => {
    const account = await newAccount();
    const endpoint = track(await newEndpoint(account));
    const sent = await call('POST', `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/test`, { token: account.apiKey });
    expect(sent.status).toBe(202);

    const [request] = await endpoint.receiver.waitForRequests(1);
    const headers = {
      'webhook-id': String(request!.headers['webhook-id']),
      'webhook-timestamp': String(request!.headers['webhook-timestamp']),
      'webhook-signature': String(request!.headers['webhook-signature']),
    };
    const envelope = new Webhook(endpoint.secret).verify(request!.body, headers) as any;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(envelope).toEqual({
      id: sent.body.eventId,
      type: 'webhook.test',
      timestamp: expect.any(String),
      accountId: account.accountId,
      data: { result: expect.objectContaining({ endpointId: endpoint.endpointId }) },
    });
    expect(headers['webhook-id']).toBe(sent.body.eventId);

    const [delivery] = await waitForDeliveries(account, endpoint.endpointId, (items) => items[0]?.status === 'succeeded');
    expect(delivery).toMatchObject({
      eventId: sent.body.eventId,
      eventType: 'webhook.test',
      status: 'succeeded',
      attemptCount: 1,
      workflowId: expect.stringMatching(/^deliveries:dbt_/),
      attempts: [expect.objectContaining({ attemptNumber: 1, statusCode: 200, outcome: 'delivered', responseBody: 'ok' })],
    });
  });
});
