import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { call, type ApiResponse, type TestAccount } from './api.ts';
import type { ReceivedRequest, TestReceiver } from './receiver.ts';
import { waitForDeliveries } from './webhooks.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The three Standard Webhooks headers of a received request, as `standardwebhooks` wants them. */
export function webhookHeaders(request: ReceivedRequest): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
}

/** Verifies a received request with the `standardwebhooks` reference library; returns the envelope, or throws. */
export function verifyWith(secret: string, request: ReceivedRequest): any {
  return new Webhook(secret).verify(request.body, webhookHeaders(request));
}

/** POST …/endpoints/{endpointId}/test. */
export function sendTestEvent(account: TestAccount, endpointId: string, token = account.apiKey): Promise<ApiResponse> {
  return call('POST', `/accounts/${account.accountId}/endpoints/${endpointId}/test`, { token });
}

/** Sends a test event and checks it was accepted; returns its event id. */
export async function sendTest(account: TestAccount, endpointId: string): Promise<string> {
  const sent = await sendTestEvent(account, endpointId);
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  return sent.body.eventId as string;
}

/** Waits until the delivery of an event to the endpoint has finished (succeeded or failed), and returns it. */
export async function waitForFinishedDelivery(account: TestAccount, endpointId: string, eventId: string, timeoutMs = 20_000): Promise<any> {
  const finished = (item: any) => item.eventId === eventId && item.redeliveryOf === null && item.status !== 'pending';
  const items = await waitForDeliveries(account, endpointId, (all) => all.some(finished), timeoutMs);
  return items.find(finished);
}

/** Waits a while and checks the receiver got no request beyond the first `count`. */
export async function expectNoMoreRequests(receiver: TestReceiver, count: number, quietMs = 1_000): Promise<void> {
  await sleep(quietMs);
  expect(receiver.requests).toHaveLength(count);
}

export const getEndpoint = (account: TestAccount, endpointId: string, token = account.apiKey) =>
  call('GET', `/accounts/${account.accountId}/endpoints/${endpointId}`, { token });
