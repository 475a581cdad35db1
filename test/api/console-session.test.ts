import { createHash } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { call, newAccount, sampleMessage } from '../support/api.ts';
import { query } from '../support/db.ts';

// The console's sign-in and its CSRF rule over plain HTTP (docs/console.md, "Sign-in and CSRF"); the browser's side
// of the same rules is in test/console/.

const ownOrigin = () => new URL(inject('apiUrl')).origin;
/** What the console's own pages send with a call that changes state. */
const fromConsole = () => ({ origin: ownOrigin(), 'x-console': '1' });

async function signIn(apiKey: string, headers: Record<string, string> = fromConsole()) {
  const response = await call('POST', '/console/session', { body: { apiKey }, headers });
  const setCookie = response.headers.get('set-cookie') ?? '';
  return { response, setCookie, cookie: setCookie.split(';')[0]! };
}

describe('POST /console/session', () => {
  it('sets an httpOnly, SameSite=Strict session cookie for 12 h, and keeps only the token’s hash', async () => {
    const { accountId, apiKey } = await newAccount();
    const before = Date.now();
    const { response, setCookie, cookie } = await signIn(apiKey);
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({ accountId, expiresAt: expect.any(String), temporalUi: null });
    const expiresAt = Date.parse(response.body.expiresAt);
    expect(expiresAt - before).toBeGreaterThanOrEqual(12 * 3600_000 - 1000);
    expect(expiresAt - before).toBeLessThanOrEqual(12 * 3600_000 + 60_000);
    expect(setCookie).toMatch(/^richpush_console=cs_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=4319\d; HttpOnly; SameSite=Strict$/);

    const token = cookie.slice(cookie.indexOf('=') + 1);
    const rows = await query('select * from console_sessions where account_id = $1', [accountId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(apiKey);
  });

  it('is Secure, under the __Host- prefix, when a proxy says the client came over https', async () => {
    const { apiKey } = await newAccount();
    const { response, setCookie, cookie } = await signIn(apiKey, { ...fromConsole(), 'x-forwarded-proto': 'https' });
    expect(response.status).toBe(201);
    expect(setCookie).toMatch(/^__Host-richpush_console=cs_\S+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);
    expect((await call('GET', '/console/session', { headers: { cookie, 'x-forwarded-proto': 'https' } })).body.signedIn).toBe(true);
    expect((await call('GET', '/console/session', { headers: { cookie } })).body).toEqual({ signedIn: false });
  });

  it('refuses a key that opens no account with 401 and no cookie', async () => {
    const { response } = await signIn('rpk_not-a-key');
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('unauthorized');
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a sign-in from another origin, or without X-Console: 1 (403 csrf_refused)', async () => {
    const { apiKey } = await newAccount();
    const refusals: Array<Record<string, string>> = [{ origin: 'http://evil.example', 'x-console': '1' }, { origin: ownOrigin() }, { 'x-console': '1' }];
    for (const headers of refusals) {
      const { response } = await signIn(apiKey, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.body.error.code).toBe('csrf_refused');
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });
});

describe('the console cookie on the API', () => {
  it('opens the account’s reads, and says until when', async () => {
    const { accountId, apiKey, appId } = await newAccount();
    const created = await call('POST', '/notification/create', { token: apiKey, body: sampleMessage(appId) });
    const { response, cookie } = await signIn(apiKey);
    const list = await call('GET', '/notification/list', { headers: { cookie } });
    expect(list.status).toBe(200);
    expect(list.body.items.map((item: { id: string }) => item.id)).toEqual([created.body.id]);
    const session = await call('GET', '/console/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(session.body).toEqual({ signedIn: true, accountId, expiresAt: response.body.expiresAt, temporalUi: null });
  });

  it('says signed out, with 200, when there is no cookie or its session is unknown', async () => {
    const unknown: Array<Record<string, string>> = [{}, { cookie: 'richpush_console=cs_unknown' }, { cookie: `richpush_console=cs_${'A'.repeat(43)}` }];
    for (const headers of unknown) {
      const session = await call('GET', '/console/session', { headers });
      expect(session.status).toBe(200);
      expect(session.body).toEqual({ signedIn: false });
      expect(session.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('carries a change only from the console’s own pages with X-Console: 1', async () => {
    const { apiKey, appId } = await newAccount();
    const { cookie } = await signIn(apiKey);
    const create = (headers: Record<string, string>) => call('POST', '/notification/create', { headers: { cookie, ...headers }, body: sampleMessage(appId) });
    expect((await create(fromConsole())).status).toBe(201);
    expect((await create({ 'sec-fetch-site': 'same-origin', 'x-console': '1' })).status).toBe(201);
    const refusals: Array<Record<string, string>> = [
      { origin: ownOrigin() },
      { 'sec-fetch-site': 'same-origin' },
      { origin: 'http://127.0.0.1:1', 'x-console': '1' },
      { 'sec-fetch-site': 'same-site', 'x-console': '1' },
      { 'x-console': '1' },
    ];
    for (const headers of refusals) {
      const refused = await create(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.body.error.code).toBe('csrf_refused');
    }
    const stored = await call('GET', `/notification/list?appId=${appId}`, { token: apiKey });
    expect(stored.body.items).toHaveLength(2);
  });

  it('leaves bearer calls as they were, cookie or not', async () => {
    const { apiKey, appId } = await newAccount();
    const { cookie } = await signIn(apiKey);
    const created = await call('POST', '/notification/create', { token: apiKey, headers: { cookie, origin: 'http://evil.example' }, body: sampleMessage(appId) });
    expect(created.status).toBe(201);
  });

  it('answers 401 once the session has passed its 12 h', async () => {
    const { accountId, apiKey } = await newAccount();
    const { cookie } = await signIn(apiKey);
    await query(`update console_sessions set expires_at = now() - interval '1 second' where account_id = $1`, [accountId]);
    const expired = await call('GET', '/notification/list', { headers: { cookie } });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('unauthorized');
  });
});

describe('POST /console/logout', () => {
  it('ends the session: its cookie answers 401 after, and the browser is told to forget it', async () => {
    const { accountId, apiKey } = await newAccount();
    const { cookie } = await signIn(apiKey);
    const out = await call('POST', '/console/logout', { headers: { cookie, ...fromConsole() } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe('richpush_console=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
    expect(await query('select 1 from console_sessions where account_id = $1', [accountId])).toEqual([]);
    const after = await call('GET', '/notification/list', { headers: { cookie } });
    expect(after.status).toBe(401);
    expect((await call('GET', '/console/session', { headers: { cookie } })).body).toEqual({ signedIn: false });
    expect((await call('GET', '/notification/list', { token: apiKey })).status).toBe(200);
  });

  it('is refused without X-Console: 1, and the session lives on', async () => {
    const { apiKey } = await newAccount();
    const { cookie } = await signIn(apiKey);
    const refused = await call('POST', '/console/logout', { headers: { cookie, origin: ownOrigin() } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('csrf_refused');
    expect((await call('GET', '/notification/list', { headers: { cookie } })).status).toBe(200);
  });

  it('answers 204 without a cookie, and clears nothing', async () => {
    const out = await call('POST', '/console/logout', { headers: fromConsole() });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBeNull();
  });
});
