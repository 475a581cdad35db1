import { describe, expect, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';
import { directEvent, newConnection, postSigned, waitForEvent } from '../support/ingest.ts';

describe('POST /v1/in/{inboundKey}', () => {
  it('accepts a signed direct event (202), runs it, links a new visitor and records the routing outcome', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const event = directEvent({ clientUserId: 'user-1', attributes: { plan: 'gold' }, endpoints: { email: 'ann@example.com' } });
    const response = await postSigned(connection, event);
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ messageId: event.messageId, eventId: expect.stringMatching(/^iev_/) });

    const stored = await waitForEvent(account, event.messageId, 'PROCESSED');
    expect(stored).toMatchObject({
      eventId: response.body.eventId,
      status: 'PROCESSED',
      clientUserId: 'user-1',
      visitorId: expect.any(String),
      // Processed by the batch the relay claimed it into.
      workflowId: expect.stringMatching(/^ingest-batch:ibt_/),
      routingOutcome: { matchedExperiences: [], startedRuns: [], deliveredTo: [], reason: expect.any(String) },
    });
    const visitor = await call('GET', `/accounts/${account.accountId}/visitors/${stored.visitorId}`, { token: account.apiKey });
    expect(visitor.body).toMatchObject({ clientUserId: 'user-1', attributes: { plan: 'gold' }, endpoints: { email: 'ann@example.com' } });
  });

  it('answers a repeated messageId with 409 and never starts a second run', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const event = directEvent();
    expect((await postSigned(connection, event)).status).toBe(202);
    const again = await postSigned(connection, event);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('duplicate_message');
  });

  it('holds an event for an unknown person until the visitor is linked, then releases it', async () => {
    const account = await newAccount();
    const connection = await newConnection(account, { eventConfig: { createVisitors: false } });
    const event = directEvent({ clientUserId: 'later-user' });
    expect((await postSigned(connection, event)).status).toBe(202);
    await waitForEvent(account, event.messageId, 'HELD');

    const linked = await call('POST', `/accounts/${account.accountId}/visitors`, { token: account.apiKey, body: { clientUserId: 'later-user' } });
    expect(linked.status).toBe(201);
    expect(linked.body.releasedEvents).toBe(1);
    const processed = await waitForEvent(account, event.messageId, 'PROCESSED');
    expect(processed.visitorId).toBe(linked.body.visitorId);
  });

  it('refuses a wrong signature with 401 invalid_signature', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const response = await postSigned(connection, directEvent(), { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_signature');
  });
});
