import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, newAccount, sampleMessage } from '../support/api.ts';
import { newApp, newSegment } from '../support/devices.ts';

describe('POST /notification/create', () => {
  it('stores the spec’s fields and answers 201 with the message in DRAFT', async () => {
    const account = await newAccount();
    const { apiKey, appId } = account;
    const segment = await newSegment(account, { all: [] });
    const message = sampleMessage(appId, segment.id);
    const response = await call('POST', '/notification/create', { token: apiKey, body: message });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      ...message,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'DRAFT',
      conversion: null,
      recording: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('stores a conversion goal, and refuses one out of its limits', async () => {
    const { apiKey, appId } = await newAccount();
    const create = (conversion: unknown) => call('POST', '/notification/create', { token: apiKey, body: { appId, title: 'Converting', conversion } });
    const created = await create({ eventType: 'purchase', withinHours: 72 });
    expect(created.status).toBe(201);
    expect(created.body.conversion).toEqual({ eventType: 'purchase', withinHours: 72 });
    for (const [conversion, field] of [
      [{ eventType: '', withinHours: 1 }, 'eventType'],
      [{ eventType: 'x'.repeat(201), withinHours: 1 }, 'eventType'],
      [{ eventType: 'purchase', withinHours: 0 }, 'withinHours'],
      [{ eventType: 'purchase', withinHours: 721 }, 'withinHours'],
      [{ eventType: 'purchase' }, 'withinHours'],
    ] as const) {
      const refused = await create(conversion);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.map((detail: { path: string }) => detail.path)).toEqual([`body.conversion.${field}`]);
    }
  });

  it('fills documented defaults when optional fields are left out', async () => {
    const { apiKey, appId } = await newAccount();
    const response = await call('POST', '/notification/create', { token: apiKey, body: { appId, title: 'Only a title' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      action: 'Open',
      expiry: 1440,
      about: [],
      priority: 'NORMAL',
      favourite: 0,
      type: 'RICHPUSH',
      channel: 'PUSH',
      subtitle: null,
      playTime: null,
      filterId: null,
    });
  });

  it('refuses a filterId that names no segment of the message’s app (422 unknown_segment) and stores nothing', async () => {
    const account = await newAccount();
    const elsewhere = await newSegment(account, { all: [] }, await newApp(account));
    const stranger = await newAccount();
    const foreign = await newSegment(stranger, { all: [] });
    for (const filterId of ['no-such-segment', randomUUID(), elsewhere.id, foreign.id]) {
      const response = await call('POST', '/notification/create', { token: account.apiKey, body: sampleMessage(account.appId, filterId) });
      expect(response.status, JSON.stringify(response.body)).toBe(422);
      expect(response.body.error).toMatchObject({ code: 'unknown_segment', message: expect.stringContaining(`filterId ${JSON.stringify(filterId)}`) });
    }
    expect((await call('GET', '/notification/list', { token: account.apiKey })).body.items).toEqual([]);
  });

  it('answers 404 for an appId of another account', async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const response = await call('POST', '/notification/create', { token: mine.apiKey, body: sampleMessage(theirs.appId) });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });

  it('requires authentication', async () => {
    const { appId } = await newAccount();
    const response = await call('POST', '/notification/create', { body: sampleMessage(appId) });
    expect(response.status).toBe(401);
  });
});

describe('GET /notification/get', () => {
  it('returns the stored message', async () => {
    const { apiKey, appId } = await newAccount();
    const created = await call('POST', '/notification/create', { token: apiKey, body: sampleMessage(appId) });
    const fetched = await call('GET', `/notification/get?id=${created.body.id}`, { token: apiKey });
    expect(fetched.status).toBe(200);
    // The stored message, with its send (never scheduled: creating a message sends nothing).
    expect(fetched.body).toEqual({ ...created.body, send: expect.objectContaining({ state: 'UNSCHEDULED', sent: 0 }) });
  });

  it('answers 404 for another account’s message and for an unknown id', async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const created = await call('POST', '/notification/create', { token: theirs.apiKey, body: sampleMessage(theirs.appId) });
    const foreign = await call('GET', `/notification/get?id=${created.body.id}`, { token: mine.apiKey });
    expect(foreign.status).toBe(404);
    const unknown = await call('GET', '/notification/get?id=00000000-0000-4000-8000-000000000000', { token: mine.apiKey });
    expect(unknown.status).toBe(404);
  });

  it('answers 400 when the id is missing or malformed', async () => {
    const { apiKey } = await newAccount();
    const missing = await call('GET', '/notification/get', { token: apiKey });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].path).toBe('query.id');
    const malformed = await call('GET', '/notification/get?id=1%27%20or%201=1', { token: apiKey });
    expect(malformed.status).toBe(400);
  });
});

describe('GET /notification/list', () => {
  it('filters by app and status and pages newest first without gaps or repeats', async () => {
    const { accountId, apiKey, appId } = await newAccount();
    const otherApp = await call('POST', `/accounts/${accountId}/apps`, { token: apiKey, body: { name: 'other' } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await call('POST', '/notification/create', { token: apiKey, body: { ...sampleMessage(appId), title: `m${i}` } });
      ids.unshift(created.body.id);
    }
    await call('POST', '/notification/create', { token: apiKey, body: sampleMessage(otherApp.body.appId) });
    // A plain PUSH plays no recording: READY when created, never DRAFT.
    const plain = await call('POST', '/notification/create', { token: apiKey, body: { ...sampleMessage(appId), type: 'PUSH', title: 'plain' } });
    expect(plain.body).toMatchObject({ type: 'PUSH', status: 'READY', recording: null });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await call('GET', `/notification/list?appId=${appId}&status=DRAFT&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: apiKey });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((item: { id: string }) => item.id));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);

    const ready = await call('GET', `/notification/list?appId=${appId}&status=READY`, { token: apiKey });
    expect(ready.body).toEqual({ items: [plain.body], nextCursor: null });
  });

  it('never lists another account’s messages', async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    await call('POST', '/notification/create', { token: theirs.apiKey, body: sampleMessage(theirs.appId) });
    const everything = await call('GET', '/notification/list', { token: mine.apiKey });
    expect(everything.body.items).toEqual([]);
    const byTheirApp = await call('GET', `/notification/list?appId=${theirs.appId}`, { token: mine.apiKey });
    expect(byTheirApp.body.items).toEqual([]);
  });

  it('rejects a bad limit, status or cursor with 400', async () => {
    const { apiKey } = await newAccount();
    for (const qs of ['limit=0', 'limit=101', 'limit=abc', 'status=SENT', 'cursor=not-a-cursor', `cursor=${Buffer.from('["x","y"]').toString('base64url')}`]) {
      const response = await call('GET', `/notification/list?${qs}`, { token: apiKey });
      expect(response.status, qs).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
    }
  });
});
