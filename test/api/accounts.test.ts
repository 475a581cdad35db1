import { createHash } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';

describe('POST /admin/accounts', () => {
  it('creates an account and shows its API key once', async () => {
    const response = await call('POST', '/admin/accounts', { token: inject('adminToken'), body: { name: 'Acme' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Acme',
      apiKey: expect.stringMatching(/^rpk_[A-Za-z0-9_-]{43}$/),
      createdAt: expect.any(String),
    });
    expect(new Date(response.body.createdAt).toISOString()).toBe(response.body.createdAt);
  });

  it('stores only a hash of the API key', async () => {
    const { accountId, apiKey } = await newAccount();
    const rows = await query('select * from accounts where id = $1', [accountId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(apiKey);
    expect(rows[0].api_key_hash).toBe(createHash('sha256').update(apiKey).digest('hex'));
  });

  it('refuses a missing or wrong admin token with 401', async () => {
    const missing = await call('POST', '/admin/accounts', { body: { name: 'x' } });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    const wrong = await call('POST', '/admin/accounts', { token: `${inject('adminToken')}x`, body: { name: 'x' } });
    expect(wrong.status).toBe(401);
  });

  it('refuses an account API key on the admin route', async () => {
    const { apiKey } = await newAccount();
    const response = await call('POST', '/admin/accounts', { token: apiKey, body: { name: 'x' } });
    expect(response.status).toBe(401);
  });

  it('validates the name', async () => {
    const response = await call('POST', '/admin/accounts', { token: inject('adminToken'), body: { name: '  ' } });
    expect(response.status).toBe(400);
    expect(response.body.error.details[0].path).toBe('body.name');
  });
});

describe('account API keys', () => {
  it('answers a missing, malformed or unknown key with 401', async () => {
    const { accountId } = await newAccount();
    for (const token of [undefined, 'garbage', 'rpk_unknownunknownunknownunknownunknownunknown0']) {
      const response = await call('GET', `/accounts/${accountId}/apps`, { token });
      expect(response.status, String(token)).toBe(401);
      expect(response.body.error.code).toBe('unauthorized');
    }
  });
});

describe('apps', () => {
  it('creates and lists the account’s apps', async () => {
    const { accountId, apiKey, appId } = await newAccount();
    const created = await call('POST', `/accounts/${accountId}/apps`, { token: apiKey, body: { name: 'Second' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ appId: expect.any(String), accountId, name: 'Second', defaultTimezone: 'UTC', frequencyCap: null, quietHours: null, createdAt: expect.any(String) });

    const listed = await call('GET', `/accounts/${accountId}/apps`, { token: apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((app: { appId: string }) => app.appId)).toEqual([created.body.appId, appId]);
    expect(listed.body.nextCursor).toBeNull();
  });

  it('gets an app and changes its name and default time zone; refuses an unknown zone or an empty change', async () => {
    const { accountId, apiKey, appId } = await newAccount();
    const path = `/accounts/${accountId}/apps/${appId}`;
    expect((await call('GET', path, { token: apiKey })).body).toMatchObject({ appId, defaultTimezone: 'UTC' });
    const changed = await call('PATCH', path, { token: apiKey, body: { defaultTimezone: 'Europe/Berlin' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ appId, defaultTimezone: 'Europe/Berlin' });
    const renamed = await call('PATCH', path, { token: apiKey, body: { name: 'Renamed' } });
    expect(renamed.body).toMatchObject({ name: 'Renamed', defaultTimezone: 'Europe/Berlin' });
    expect((await call('GET', path, { token: apiKey })).body).toEqual(renamed.body);

    const unknownZone = await call('PATCH', path, { token: apiKey, body: { defaultTimezone: 'Mars/Olympus' } });
    expect(unknownZone.status).toBe(400);
    expect(unknownZone.body.error.details).toEqual([{ path: 'body.defaultTimezone', message: 'must be an IANA time zone such as Europe/London' }]);
    expect((await call('PATCH', path, { token: apiKey, body: {} })).status).toBe(400);
    expect((await call('PATCH', path, { token: apiKey, body: { frequency: 1 } })).status).toBe(400);
    const created = await call('POST', `/accounts/${accountId}/apps`, { token: apiKey, body: { name: 'Tokyo', defaultTimezone: 'Asia/Tokyo' } });
    expect(created.body).toMatchObject({ name: 'Tokyo', defaultTimezone: 'Asia/Tokyo' });
  });

  it('sets, shows and removes an app’s frequency cap; refuses one out of its limits', async () => {
    const { accountId, apiKey, appId } = await newAccount();
    const path = `/accounts/${accountId}/apps/${appId}`;
    expect((await call('GET', path, { token: apiKey })).body).toMatchObject({ frequencyCap: null });
    const capped = await call('PATCH', path, { token: apiKey, body: { frequencyCap: { max: 3, hours: 24 } } });
    expect(capped.status).toBe(200);
    expect((await call('GET', path, { token: apiKey })).body).toMatchObject({ frequencyCap: { max: 3, hours: 24 } });
    // Changing something else keeps the cap; null removes it.
    expect((await call('PATCH', path, { token: apiKey, body: { name: 'Kept' } })).body).toMatchObject({ frequencyCap: { max: 3, hours: 24 } });
    expect((await call('PATCH', path, { token: apiKey, body: { frequencyCap: null } })).body).toMatchObject({ frequencyCap: null });
    for (const [frequencyCap, field] of [
      [{ max: 0, hours: 24 }, 'max'],
      [{ max: 1001, hours: 24 }, 'max'],
      [{ max: 2, hours: 0 }, 'hours'],
      [{ max: 2, hours: 721 }, 'hours'],
      [{ max: 2.5, hours: 1 }, 'max'],
      [{ max: 2 }, 'hours'],
    ] as const) {
      const refused = await call('PATCH', path, { token: apiKey, body: { frequencyCap } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.map((detail: { path: string }) => detail.path)).toEqual([`body.frequencyCap.${field}`]);
    }
    const refusedExtra = await call('PATCH', path, { token: apiKey, body: { frequencyCap: { max: 1, hours: 1, perCampaign: true } } });
    expect(refusedExtra.status).toBe(400);
    const created = await call('POST', `/accounts/${accountId}/apps`, { token: apiKey, body: { name: 'Capped', frequencyCap: { max: 1, hours: 12 } } });
    expect(created.body).toMatchObject({ frequencyCap: { max: 1, hours: 12 } });
  });

  it('sets, shows and removes an app’s quiet hours; refuses a malformed time or action', async () => {
    const { accountId, apiKey, appId } = await newAccount();
    const path = `/accounts/${accountId}/apps/${appId}`;
    const overnight = { start: '21:00', end: '08:00', action: 'delay' };
    expect((await call('PATCH', path, { token: apiKey, body: { quietHours: overnight } })).body).toMatchObject({ quietHours: overnight });
    expect((await call('GET', path, { token: apiKey })).body).toMatchObject({ quietHours: overnight });
    expect((await call('PATCH', path, { token: apiKey, body: { quietHours: null } })).body).toMatchObject({ quietHours: null });
    for (const [quietHours, field] of [
      [{ start: '24:00', end: '08:00', action: 'skip' }, 'start'],
      [{ start: '9:00', end: '08:00', action: 'skip' }, 'start'],
      [{ start: '21:00', end: '08:60', action: 'skip' }, 'end'],
      [{ start: '21:00', end: '21:00', action: 'skip' }, 'end'],
      [{ start: '21:00', end: '08:00', action: 'drop' }, 'action'],
      [{ start: '21:00', end: '08:00' }, 'action'],
    ] as const) {
      const refused = await call('PATCH', path, { token: apiKey, body: { quietHours } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.map((detail: { path: string }) => detail.path)).toEqual([`body.quietHours.${field}`]);
    }
  });

  it('pages through apps with a cursor', async () => {
    const { accountId, apiKey } = await newAccount();
    for (const name of ['b', 'c', 'd', 'e']) {
      await call('POST', `/accounts/${accountId}/apps`, { token: apiKey, body: { name } });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call('GET', `/accounts/${accountId}/apps?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: apiKey });
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((app: { name: string }) => app.name));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.slice(0, 4)).toEqual(['e', 'd', 'c', 'b']);
    expect(seen[4]).toMatch(/-app$/);
    expect(seen).toHaveLength(5);
  });

  it('hides another account’s path behind 404', async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const list = await call('GET', `/accounts/${theirs.accountId}/apps`, { token: mine.apiKey });
    expect(list.status).toBe(404);
    expect(list.body.error.code).toBe('not_found');
    const create = await call('POST', `/accounts/${theirs.accountId}/apps`, { token: mine.apiKey, body: { name: 'x' } });
    expect(create.status).toBe(404);
    for (const method of ['GET', 'PATCH'] as const) {
      const one = await call(method, `/accounts/${theirs.accountId}/apps/${theirs.appId}`, { token: mine.apiKey, ...(method === 'PATCH' ? { body: { name: 'x' } } : {}) });
      expect(one.status).toBe(404);
    }
    const notTheirs = await call('GET', `/accounts/${mine.accountId}/apps/${theirs.appId}`, { token: mine.apiKey });
    expect(notTheirs.status).toBe(404);
    const theirApps = await call('GET', `/accounts/${theirs.accountId}/apps`, { token: theirs.apiKey });
    expect(theirApps.body.items).toHaveLength(1);
  });
});
