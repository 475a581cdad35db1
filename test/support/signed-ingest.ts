import { inject } from 'vitest';

import { buildWebhookHeaders } from '../../src/security/standard-webhooks.ts';
import { call, type ApiResponse, type TestAccount } from './api.ts';
import { ok } from './http-assertions.ts';
import type { ConnectionFixture } from './ingest.ts';

// Helpers for the ingest tests: signed posts to any API instance (a second one: startApiInstance in instances.ts),
// and an account's events.

export interface SignOptions {
  /** Unix seconds; defaults to now. */
  timestamp?: number;
  secret?: string;
  id?: string;
  headers?: Record<string, string>;
  /** The exact bytes to send (and sign, unless signedRaw says otherwise). */
  raw?: string;
  /** Sign these bytes instead of the ones sent. */
  signedRaw?: string;
  /** Headers to leave out, e.g. 'webhook-signature'. */
  omit?: string[];
}

let sequence = 0;

/** The Standard Webhooks headers a client would send for these bytes. */
export function signedHeaders(secret: string, raw: string, options: { timestamp?: number; id?: string } = {}): Record<string, string> {
  return buildWebhookHeaders({
    id: options.id ?? `wh-extra-${Date.now()}-${++sequence}`,
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
    body: raw,
    secrets: [secret],
  });
}

/** Posts a signed body to the ingest endpoint of the given instance (the global API by default). */
export async function postSignedTo(
  baseUrl: string,
  connection: Pick<ConnectionFixture, 'inboundKey' | 'signingSecret'>,
  body: unknown,
  options: SignOptions = {},
): Promise<ApiResponse> {
  const raw = options.raw ?? JSON.stringify(body);
  const headers: Record<string, string> = {
    ...signedHeaders(options.secret ?? connection.signingSecret, options.signedRaw ?? raw, options),
    ...options.headers,
  };
  for (const name of options.omit ?? []) delete headers[name];
  const response = await fetch(`${baseUrl}/v1/in/${connection.inboundKey}`, { method: 'POST', headers, body: raw });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Posts to the global API. */
export const post = (connection: Pick<ConnectionFixture, 'inboundKey' | 'signingSecret'>, body: unknown, options: SignOptions = {}) =>
  postSignedTo(inject('apiUrl'), connection, body, options);

/** Every inbound event of the account (walks all pages). */
export async function eventsOf(account: TestAccount, query = ''): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = ok(await call('GET', `/accounts/${account.accountId}/events?limit=100${query ? `&${query}` : ''}${suffix}`, { token: account.apiKey }));
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}
