import { inject } from 'vitest';
import { buildWebhookHeaders } from '../../src/security/standard-webhooks.ts';
import { call, type TestAccount } from './api.ts';
import { until } from './wait.ts';

export interface ConnectionFixture {
  connectionId: string;
  inboundKey: string;
  inboundUrl: string;
  signingSecret: string;
}

export async function newConnection(account: TestAccount, body: Record<string, unknown> = {}): Promise<ConnectionFixture> {
  const response = await call('POST', `/accounts/${account.accountId}/connections`, {
    token: account.apiKey,
    body: { provider: 'direct', label: 'Shop backend', ...body },
  });
  if (response.status !== 201) throw new Error(`connection creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

let sequence = 0;
export const directEvent = (overrides: Record<string, unknown> = {}) => ({
  version: '1',
  messageId: `msg-${Date.now()}-${++sequence}`,
  occurredAt: new Date().toISOString(),
  eventType: 'order.completed',
  ...overrides,
});

/** Posts a body to the ingest endpoint, signed as a client would (Standard Webhooks). */
export async function postSigned(
  connection: Pick<ConnectionFixture, 'inboundKey' | 'signingSecret'>,
  body: unknown,
  options: { timestamp?: number; secret?: string; id?: string; headers?: Record<string, string>; raw?: string; baseUrl?: string } = {},
) {
  const raw = options.raw ?? JSON.stringify(body);
  const id = options.id ?? `wh-${Date.now()}-${++sequence}`;
  const headers = buildWebhookHeaders({
    id,
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
    body: raw,
    secrets: [options.secret ?? connection.signingSecret],
  });
  return call('POST', `/v1/in/${connection.inboundKey}`, { rawBody: raw, headers: { ...headers, ...options.headers }, baseUrl: options.baseUrl });
}

/** Polls the events list until the event reaches a final status (or the given one). */
export async function waitForEvent(account: TestAccount, messageId: string, status?: string, timeoutMs = 15_000): Promise<any> {
  const eventOf = async () => {
    const page = await call('GET', `/accounts/${account.accountId}/events?limit=100`, { token: account.apiKey });
    return page.body.items?.find((item: { messageId: string }) => item.messageId === messageId);
  };
  const reached = (event: any) => event !== undefined && (status ? event.status === status : !['RECEIVED'].includes(event.status));
  return until(`event ${messageId} to reach ${status ?? 'a final status'}`, eventOf, reached, { timeoutMs });
}

export const apiUrl = () => inject('apiUrl');
