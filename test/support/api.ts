import { inject } from 'vitest';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  token?: string | undefined;
  body?: unknown;
  /** Sent as is, for malformed or oversized bodies. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Another API instance's URL; the run's API by default. */
  baseUrl?: string;
  /** Gives up on the call (it rejects), e.g. `AbortSignal.timeout(ms)` where a hang would be the failure. */
  signal?: AbortSignal;
}

/** Calls the running service over HTTP, the way a client would. */
export async function call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${options.baseUrl ?? inject('apiUrl')}${path}`, { method, headers, body, signal: options.signal });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/**
 * Every item of a paged list (`{ items, nextCursor }`), walking its cursor; `path` may carry a query of its own.
 * Fails on any answer but 200, with its body.
 */
export async function allPages<T = any>(path: string, options: Pick<CallOptions, 'token' | 'baseUrl'> = {}): Promise<T[]> {
  const items: T[] = [];
  const separator = path.includes('?') ? '&' : '?';
  let cursor: string | null = null;
  do {
    const page: ApiResponse<{ items: T[]; nextCursor: string | null }> = await call('GET', `${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, options);
    if (page.status !== 200) throw new Error(`GET ${path}: ${page.status} ${JSON.stringify(page.body)}`);
    items.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

export interface TestAccount {
  accountId: string;
  apiKey: string;
  appId: string;
}

let counter = 0;

/** A fresh account with one app, so each test is isolated from every other. */
export async function newAccount(name = `account-${++counter}`): Promise<TestAccount> {
  const account = await call('POST', '/admin/accounts', { token: inject('adminToken'), body: { name } });
  if (account.status !== 201) throw new Error(`account creation failed: ${account.status} ${JSON.stringify(account.body)}`);
  const app = await call('POST', `/accounts/${account.body.accountId}/apps`, { token: account.body.apiKey, body: { name: `${name}-app` } });
  if (app.status !== 201) throw new Error(`app creation failed: ${app.status} ${JSON.stringify(app.body)}`);
  return { accountId: account.body.accountId, apiKey: account.body.apiKey, appId: app.body.appId };
}

export { sampleMessage } from './samples.ts';
