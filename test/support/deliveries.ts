import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { call, type ApiResponse, type TestAccount } from './api.ts';
import { query } from './db.ts';
import type { ReceivedRequest, TestReceiver } from './receiver.ts';
import { temporalClient, waitForRunClosed } from './temporal.ts';
import { until } from './wait.ts';
import { waitForDeliveries } from './webhooks.ts';

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

/**
 * Waits until the outbound events of these accounts can cause no further request, and fails when that takes longer
 * than the timeout. An event is stored with every delivery it will ever have (one statement); a delivery is final
 * (succeeded or failed) once its last attempt is recorded, and its row then names the run that sent it: a batch
 * run, or the ingest run whose chunk made a first attempt immediately (ADR 0027), which may hand a delivery it did not
 * settle to a batch run. A run that has closed makes no further attempt. Events emitted meanwhile (endpoint.disabled, from a delivery's attempt) are found and settled too.
 * Whatever else emits the accounts' events (the test's own calls, a job's run) must be done before this is called.
 */
export async function waitForEventsSettled(accountIds: string[], timeoutMs = 20_000): Promise<void> {
  // One time limit for the whole wait: each step below gets what is left of it.
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  const { client, close } = await temporalClient();
  try {
    const settled = new Set<string>();
    for (;;) {
      const events = await query<{ id: string }>('select id from outbound_events where account_id = any($1::uuid[])', [accountIds]);
      const unsettled = events.map((event) => event.id).filter((id) => !settled.has(id));
      if (unsettled.length === 0) return;
      // Each run once, however many of these events it sent (a batch run sends up to 50).
      const runs = await sendersOnceFinal(unsettled, remaining());
      await Promise.all(runs.map((workflowId) => waitForRunClosed(client, workflowId, remaining())));
      for (const id of unsettled) settled.add(id);
    }
  } finally {
    await close();
  }
}

/** The runs that sent these events' deliveries, once every one of them is final. */
const sendersOnceFinal = (eventIds: string[], timeoutMs: number): Promise<string[]> =>
  until(
    `the deliveries of ${eventIds.length === 1 ? eventIds[0] : `${eventIds.length} events`} to be final`,
    async () => {
      const rows = await query<{ workflow_id: string | null; status: string }>('select workflow_id, status from deliveries where event_id = any($1)', [eventIds]);
      return rows.every((row) => row.workflow_id !== null && row.status !== 'pending') && [...new Set(rows.map((row) => row.workflow_id!))];
    },
    { timeoutMs, intervalMs: 25 },
  );

/**
 * Once the events of the account (and of the others given) have settled, so that no further request can come, checks
 * the receiver got exactly `count`.
 */
export async function expectNoMoreRequests(
  receiver: TestReceiver,
  count: number,
  account: Pick<TestAccount, 'accountId'>,
  ...others: Array<Pick<TestAccount, 'accountId'>>
): Promise<void> {
  await waitForEventsSettled([account, ...others].map((each) => each.accountId));
  expect(receiver.requests).toHaveLength(count);
}

export const getEndpoint = (account: TestAccount, endpointId: string, token = account.apiKey) =>
  call('GET', `/accounts/${account.accountId}/endpoints/${endpointId}`, { token });
