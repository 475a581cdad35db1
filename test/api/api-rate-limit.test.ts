import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiRateLimitDefaults } from '../../src/config.ts';
import { call, type ApiResponse } from '../support/api.ts';
import { killWorker, startApiProcess } from '../support/instances.ts';

// The management API's rate limit, black box: `npm run api` in a process of its own, with API_RATE_LIMIT_PER_SECOND
// and API_RATE_LIMIT_BURST unset (so their defaults, 100 and 200; the suite's other instances have a far higher
// limit), and an admin token of its own, so that its counters are this file's alone.

const limit = apiRateLimitDefaults;
const adminToken = `adm_rate_${randomBytes(16).toString('hex')}`;
let api: { child: ChildProcess; url: string };

beforeAll(async () => {
  expect(limit).toEqual({ perSecond: 100, burst: 200 });
  api = await startApiProcess(inject('taskQueue'), { ADMIN_TOKEN: adminToken, API_RATE_LIMIT_PER_SECOND: undefined, API_RATE_LIMIT_BURST: undefined });
});
afterAll(async () => {
  if (api) await killWorker(api.child);
});

interface Account {
  accountId: string;
  apiKey: string;
}

const createAccount = (body: unknown) => call('POST', '/admin/accounts', { baseUrl: api.url, token: adminToken, body });
/** An API-key route that reads nothing but the caller's account. */
const listEventTypes = (account: Account) => call('GET', '/event-types', { baseUrl: api.url, token: account.apiKey });

async function newAccount(name: string): Promise<Account> {
  const created = await createAccount({ name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as Account;
}

/** A header as a whole number (digits only), or a failure naming it. */
function wholeNumber(response: ApiResponse, name: string): number {
  const value = response.headers.get(name);
  expect(value, `${name} on a ${response.status}`).toMatch(/^\d+$/);
  return Number(value);
}

/** The three IETF headers, as every answer of a limited route carries them. */
function expectRateLimitHeaders(response: ApiResponse): { remaining: number; reset: number } {
  expect(wholeNumber(response, 'RateLimit-Limit'), `RateLimit-Limit on a ${response.status}`).toBe(limit.perSecond);
  const remaining = wholeNumber(response, 'RateLimit-Remaining');
  expect(remaining).toBeLessThanOrEqual(limit.perSecond);
  return { remaining, reset: wholeNumber(response, 'RateLimit-Reset') };
}

interface Answer {
  response: ApiResponse;
  /** When it arrived (ms since the epoch). */
  arrivedAt: number;
}

/** Checks a 429 and says when, by its own headers, the caller may come back (ms since the epoch). */
function expectRateLimited({ response, arrivedAt }: Answer): number {
  expect(response.status).toBe(429);
  expect(response.body.error).toMatchObject({ code: 'rate_limited', requestId: expect.any(String) });
  expect(response.body.error.message).toMatch(/^Too many requests/);
  const retryAfter = wholeNumber(response, 'Retry-After');
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  const { remaining, reset } = expectRateLimitHeaders(response);
  expect(remaining).toBe(0);
  expect(reset).toBe(retryAfter);
  return arrivedAt + retryAfter * 1000;
}

/** `count` requests at once. */
const burst = (count: number, send: () => Promise<ApiResponse>): Promise<Answer[]> =>
  Promise.all(Array.from({ length: count }, async () => ({ response: await send(), arrivedAt: Date.now() })));

/**
 * A burst of 500 from a fresh account, until one is sent fast enough to test the limit: the allowance is 100 a
 * second (counted in fixed one-second windows from the first request) plus 200, so 500 requests spread over 3 s or
 * more may all be within it, and on a machine that busy the burst is sent again (four bursts at most). Under 2 s
 * the allowance is at most 400: a burst with no 429 then fails the test, as it does without the limiter.
 */
async function floodFromFreshAccount(): Promise<{ flooder: Account; answers: Answer[]; bystanderAnswer: ApiResponse }> {
  for (let attempt = 1; ; attempt++) {
    const flooder = await newAccount(`flooder ${attempt}`);
    const bystander = await newAccount(`bystander ${attempt}`);
    const started = Date.now();
    // The bystander asks while the flood is under way, on the same instance and the same route.
    const [answers, bystanderAnswer] = await Promise.all([burst(500, () => listEventTypes(flooder)), listEventTypes(bystander)]);
    const refused = answers.some(({ response }) => response.status === 429);
    if (!refused && Date.now() - started >= 2000 && attempt < 4) continue;
    return { flooder, answers, bystanderAnswer };
  }
}

/** Waits until the latest moment these 429s named by Retry-After (the window they were refused in is over). */
async function waitOutRefusals(refusals: Answer[]): Promise<void> {
  const backAt = Math.max(...refusals.map(expectRateLimited));
  const wait = backAt - Date.now();
  if (wait > 0) await sleep(wait);
}

describe('the management API limits each account', () => {
  beforeAll(async () => {
    // The code paths compiled before the burst is timed (an account of its own, within its allowance).
    const warm = await newAccount('warm-up');
    for (const { response } of await burst(100, () => listEventTypes(warm))) expect(response.status).toBe(200);
  });

  it('answers a burst of 500 with 429 rate_limited beyond the allowance, every answer with the RateLimit headers, and serves again once Retry-After has passed', { timeout: 90_000 }, async () => {
    const { flooder, answers, bystanderAnswer } = await floodFromFreshAccount();

    const served = answers.filter(({ response }) => response.status === 200);
    const refused = answers.filter(({ response }) => response.status === 429);
    const other = answers.find(({ response }) => ![200, 429].includes(response.status));
    expect(other?.response.body).toBeUndefined();
    expect(refused.length).toBeGreaterThan(0);
    // At least the burst allowance and most of a second's (reserved blocks may go unused at a second's end).
    expect(served.length).toBeGreaterThanOrEqual(limit.burst + limit.perSecond * 0.85);
    for (const { response } of served) {
      // The allowance is per second: whatever is left comes back within one.
      expect(expectRateLimitHeaders(response).reset).toBe(1);
    }
    // The allowance runs down as the second's requests are served.
    expect(Math.min(...served.map(({ response }) => expectRateLimitHeaders(response).remaining))).toBe(0);
    for (const answer of refused) expectRateLimited(answer);

    // Another account is not affected: a fresh allowance, less its own request.
    expect(bystanderAnswer.status).toBe(200);
    expect(expectRateLimitHeaders(bystanderAnswer).remaining).toBe(limit.perSecond - 1);

    // Once the time the 429s named has passed, the flooder is served again, with a fresh second's allowance.
    await waitOutRefusals(refused);
    const next = await listEventTypes(flooder);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(expectRateLimitHeaders(next).remaining).toBeGreaterThanOrEqual(limit.perSecond - 10);
  });

  it('puts the headers on errors of a limited route too, and limits no request it cannot attribute', async () => {
    const account = await newAccount('errors');
    // A 404 (another account's path) and a 400 (a malformed id) come after the limit: they carry its headers.
    const otherPath = await call('GET', '/accounts/00000000-0000-4000-8000-000000000000/apps', { baseUrl: api.url, token: account.apiKey });
    expect(otherPath.status).toBe(404);
    expectRateLimitHeaders(otherPath);
    const malformed = await call('GET', '/notification/get?id=not-a-uuid', { baseUrl: api.url, token: account.apiKey });
    expect(malformed.status).toBe(400);
    expectRateLimitHeaders(malformed);

    // A 401 knows no caller: no headers, and no 429 however many come.
    const unauthenticated = await burst(150, () => call('GET', `/accounts/${account.accountId}/apps`, { baseUrl: api.url, token: 'rpk_not-a-key' }));
    expect(new Set(unauthenticated.map(({ response }) => response.status))).toEqual(new Set([401]));
    expect(unauthenticated.filter(({ response }) => response.headers.get('RateLimit-Limit') !== null)).toEqual([]);
    const after = await listEventTypes(account);
    expect(after.status).toBe(200);
    expect(expectRateLimitHeaders(after).remaining).toBeGreaterThanOrEqual(limit.perSecond - 10);

    // Routes without credentials are not limited.
    const health = await call('GET', '/healthz', { baseUrl: api.url });
    expect(health.status).toBe(200);
    expect(health.headers.get('RateLimit-Limit')).toBeNull();
  });
});

describe('the management API limits the admin token', () => {
  it('on its own allowance: a burst on the admin routes gets 429s while an account is served, and is served again once Retry-After has passed', { timeout: 90_000 }, async () => {
    const account = await newAccount('admin-bystander');

    // Invalid bodies (400), so that the burst creates nothing: the limit comes before the body is read. Sent again
    // if a busy machine spread it over 2 s or more without a 429, as above.
    let answers: Answer[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const started = Date.now();
      answers = await burst(500, () => createAccount({}));
      if (answers.some(({ response }) => response.status === 429) || Date.now() - started < 2000) break;
    }
    const invalid = answers.filter(({ response }) => response.status === 400);
    const refused = answers.filter(({ response }) => response.status === 429);
    expect(invalid.length + refused.length).toBe(500);
    expect(refused.length).toBeGreaterThan(0);
    for (const { response } of invalid) {
      expect(response.body.error.code).toBe('validation_failed');
      expectRateLimitHeaders(response);
    }

    // The account's allowance is its own.
    const served = await listEventTypes(account);
    expect(served.status).toBe(200);
    expect(expectRateLimitHeaders(served).remaining).toBeGreaterThanOrEqual(limit.perSecond - 10);

    await waitOutRefusals(refused);
    const created = await createAccount({ name: 'after the admin burst' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expectRateLimitHeaders(created);
  });
});

describe('the rate limit in the OpenAPI document', () => {
  it('documents the 429 and the headers on every limited operation, and neither on the others', async () => {
    const { body: document } = await call('GET', '/openapi.json', { baseUrl: api.url });
    const headerNames = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
    expect(Object.keys(document.components.headers).sort()).toEqual([...headerNames, 'Retry-After'].sort());
    let limited = 0;
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const at = `${method} ${path}`;
        if (operation.security.length === 0) {
          // Health, the document itself, and ingest (which documents its own 429, per connection).
          for (const response of Object.values<any>(operation.responses)) expect(response.headers, at).toBeUndefined();
          continue;
        }
        limited++;
        const { responses } = operation;
        expect(responses['429'].description, at).toContain('`rate_limited`');
        expect(Object.keys(responses['429'].headers), at).toEqual([...headerNames, 'Retry-After']);
        const success = Object.keys(responses).find((status) => status.startsWith('2'))!;
        expect(Object.keys(responses[success].headers), at).toEqual(headerNames);
        expect(responses['401'].headers, `${at}: a 401 comes before the limit`).toBeUndefined();
      }
    }
    expect(limited).toBeGreaterThan(60);
  });
});
