import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, newAccount, sampleMessage, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { ok } from '../support/http-assertions.ts';
import { newApp, newSegment } from '../support/devices.ts';
import { fileRow } from '../support/files.ts';

const isoNow = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** A stock body playing a ready file of the app (a row as processing leaves it: these tests are about stock). */
const stockBody = async (account: TestAccount, n = 1, appId = account.appId) => {
  const file = await fileRow({ ...account, appId });
  return { appId, title: `Stock jingle ${n}`, fileId: file.fileId, richPushLevel: 'TORSO', file };
};

async function newStock(account: TestAccount, n = 1, appId = account.appId): Promise<any> {
  const { file: _file, ...body } = await stockBody(account, n, appId);
  return ok(await call('POST', '/stock/create', { token: account.apiKey, body }), 201);
}

/** The spec's from-stock body: the message fields without filterId, priority, favourite and channel. */
function slotBody(appId: string) {
  const { filterId: _filterId, priority: _priority, favourite: _favourite, channel: _channel, ...fields } = sampleMessage(appId);
  return fields;
}

const notificationCount = async (accountId: string) =>
  Number((await query('select count(*)::int as n from notifications where account_id = $1', [accountId]))[0].n);
const slotCount = async (accountId: string) => Number((await query('select count(*)::int as n from slots where account_id = $1', [accountId]))[0].n);

describe('stock', () => {
  it('creates a stock item (201) with the fields it stored', async () => {
    const account = await newAccount();
    const { file, ...body } = await stockBody(account);
    const created = await call('POST', '/stock/create', { token: account.apiKey, body });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      stockId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      appId: account.appId,
      title: 'Stock jingle 1',
      url: file.url,
      fileId: file.fileId,
      richPushLevel: 'TORSO',
      createdAt: isoNow,
    });
    const listed = ok(await call('GET', `/stock/list?appId=${account.appId}`, { token: account.apiKey }));
    expect(listed).toEqual({ items: [created.body], nextCursor: null });

    // richPushLevel is optional.
    const plain = ok(await call('POST', '/stock/create', { token: account.apiKey, body: { appId: account.appId, title: 'Plain', fileId: (await fileRow(account)).fileId } }), 201);
    expect(plain.richPushLevel).toBeNull();
  });

  it("answers 404 for another account's app and creates nothing", async () => {
    const account = await newAccount();
    const other = await newAccount();
    const { file: _file, ...body } = await stockBody(account);
    const response = await call('POST', '/stock/create', { token: account.apiKey, body: { ...body, appId: other.appId } });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
    expect((await call('POST', '/stock/create', { token: account.apiKey, body: { ...body, appId: randomUUID() } })).status).toBe(404);
    // Another account's file, or one of another app, is as unknown.
    const foreign = await fileRow(other);
    expect((await call('POST', '/stock/create', { token: account.apiKey, body: { ...body, fileId: foreign.fileId } })).status).toBe(404);
    for (const who of [account, other]) expect(ok(await call('GET', '/stock/list', { token: who.apiKey })).items).toEqual([]);
  });

  it.each([
    ['an http url', { fileId: undefined, url: 'http://cdn.example.com/stock.m4a' }, 'body.url'],
    ['a url that is not one', { fileId: undefined, url: 'stock.m4a' }, 'body.url'],
    ['both a file and a url', { url: 'https://cdn.example.com/stock.m4a' }, 'body.fileId'],
    ['neither a file nor a url', { fileId: undefined }, 'body.fileId'],
    ['a file id of another shape', { fileId: randomUUID() }, 'body.fileId'],
    ['an empty title', { title: '  ' }, 'body.title'],
    ['a lower-case level', { richPushLevel: 'torso' }, 'body.richPushLevel'],
    ['an unknown field', { stockId: randomUUID() }, 'body'],
  ])('refuses %s (400 with its path)', async (_name, change, path) => {
    const account = await newAccount();
    const { file: _file, ...body } = await stockBody(account);
    const response = await call('POST', '/stock/create', { token: account.apiKey, body: { ...body, ...change } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_failed');
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect(ok(await call('GET', '/stock/list', { token: account.apiKey })).items).toEqual([]);
  });

  it('lists stock newest first, by app, one page at a time', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const secondApp = ok(await call('POST', `/accounts/${account.accountId}/apps`, { token, body: { name: 'second' } }), 201).appId;
    const first = await newStock(account, 1);
    const second = await newStock(account, 2);
    const third = await newStock(account, 3);
    const elsewhere = await newStock(account, 4, secondApp);

    const ids = async (q: string) => ok(await call('GET', `/stock/list?${q}`, { token })).items.map((item: any) => item.stockId);
    expect(await ids('')).toEqual([elsewhere.stockId, third.stockId, second.stockId, first.stockId]);
    expect(await ids(`appId=${account.appId}`)).toEqual([third.stockId, second.stockId, first.stockId]);
    expect(await ids(`appId=${secondApp}`)).toEqual([elsewhere.stockId]);

    const walked: any[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const body: any = ok(await call('GET', `/stock/list?appId=${account.appId}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token }));
      expect(body.items.length).toBeLessThanOrEqual(2);
      walked.push(...body.items);
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    expect(walked).toEqual([third, second, first]);

    // Another account sees none of it.
    const other = await newAccount();
    expect(ok(await call('GET', '/stock/list', { token: other.apiKey })).items).toEqual([]);
    expect(ok(await call('GET', `/stock/list?appId=${account.appId}`, { token: other.apiKey })).items).toEqual([]);
    expect((await call('GET', '/stock/list?limit=0', { token })).status).toBe(400);
    expect((await call('GET', '/stock/list?cursor=nonsense', { token })).status).toBe(400);
  });
});

describe('slots from stock', () => {
  it.each(['/slot/create/fromStock', '/slot/fromStock'])('%s makes a READY message that plays the stock recording', async (path) => {
    const account = await newAccount();
    const token = account.apiKey;
    const stock = await newStock(account);
    const response = await call('POST', `${path}?stockId=${stock.stockId}`, { token, body: slotBody(account.appId) });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toEqual({
      slotId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      stockId: stock.stockId,
      notification: expect.objectContaining({
        appId: account.appId,
        title: 'Weekend sale',
        subtitle: 'Up to 50% off',
        text: 'Tap to hear the announcement',
        action: 'Open',
        fbTitle: 'Weekend sale',
        expiry: 1440,
        playTime: 1_795_000_000_000,
        about: [],
        type: 'RICHPUSH',
        status: 'READY',
        recording: { url: stock.url, stockId: stock.stockId, fileId: stock.fileId, durationMs: 1500, contentType: 'audio/mp4' },
        // Not among the from-stock fields: the defaults.
        filterId: null,
        priority: 'NORMAL',
        favourite: 0,
        channel: 'PUSH',
      }),
    });
    const notification = response.body.notification;
    expect(ok(await call('GET', `/notification/get?id=${notification.id}`, { token }))).toEqual({ ...notification, send: expect.objectContaining({ state: 'UNSCHEDULED' }) });
    const [slot] = await query('select id, stock_id, notification_id from slots where id = $1', [response.body.slotId]);
    expect(slot).toEqual({ id: response.body.slotId, stock_id: stock.stockId, notification_id: notification.id });
  });

  it("answers 404 for an unknown or another account's stock id, and makes nothing", async () => {
    const account = await newAccount();
    const other = await newAccount();
    const foreign = await newStock(other);
    for (const stockId of [randomUUID(), foreign.stockId]) {
      const response = await call('POST', `/slot/create/fromStock?stockId=${stockId}`, { token: account.apiKey, body: slotBody(account.appId) });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
    expect(await notificationCount(account.accountId)).toBe(0);
    expect(await slotCount(account.accountId)).toBe(0);
    expect(await slotCount(other.accountId)).toBe(0);
  });

  it("answers 404 for a message in another account's app, and makes nothing", async () => {
    const account = await newAccount();
    const other = await newAccount();
    const stock = await newStock(account);
    const response = await call('POST', `/slot/fromStock?stockId=${stock.stockId}`, { token: account.apiKey, body: slotBody(other.appId) });
    expect(response.status).toBe(404);
    expect(await notificationCount(account.accountId)).toBe(0);
    expect(await notificationCount(other.accountId)).toBe(0);
    expect(await slotCount(account.accountId)).toBe(0);
  });

  it('takes the message create body’s other fields too: a from-stock message can target a segment', async () => {
    const account = await newAccount();
    const token = account.apiKey;
    const stock = await newStock(account);
    const segment = await newSegment(account, { all: [] });
    const body = { ...slotBody(account.appId), filterId: segment.id, priority: 'HIGH', favourite: 1, channel: 'PUSH' };
    const response = await call('POST', `/slot/create/fromStock?stockId=${stock.stockId}`, { token, body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const notification = response.body.notification;
    expect(notification).toMatchObject({ filterId: segment.id, priority: 'HIGH', favourite: 1, channel: 'PUSH', status: 'READY' });
    expect(ok(await call('GET', `/notification/get?id=${notification.id}`, { token }))).toEqual({ ...notification, send: expect.objectContaining({ state: 'UNSCHEDULED' }) });
    // Stored and answered as a created message's are.
    const created = ok(await call('POST', '/notification/create', { token, body }), 201);
    const { id: _a, status: _b, recording: _c, createdAt: _d, updatedAt: _e, ...fields } = created;
    expect(notification).toMatchObject(fields);
  });

  it('refuses a filterId that names no segment of the message’s app (422 unknown_segment), and makes nothing', async () => {
    const account = await newAccount();
    const stock = await newStock(account);
    const elsewhere = await newSegment(account, { all: [] }, await newApp(account));
    for (const filterId of ['no-such-segment', randomUUID(), elsewhere.id]) {
      const response = await call('POST', `/slot/create/fromStock?stockId=${stock.stockId}`, { token: account.apiKey, body: { ...slotBody(account.appId), filterId } });
      expect(response.status, JSON.stringify(response.body)).toBe(422);
      expect(response.body.error.code).toBe('unknown_segment');
    }
    expect(await notificationCount(account.accountId)).toBe(0);
    expect(await slotCount(account.accountId)).toBe(0);
  });

  it.each([
    ['a bad priority', { priority: 'URGENT' }, 'body.priority'],
    ['a bad channel', { channel: 'SMS' }, 'body.channel'],
    ['an unknown field', { segment: 'vip' }, 'body'],
    ['a missing title', { title: undefined }, 'body.title'],
    ['a bad action', { action: 'Dance' }, 'body.action'],
  ])('refuses a body with %s (400) and makes nothing', async (_name, change, path) => {
    const account = await newAccount();
    const stock = await newStock(account);
    const response = await call('POST', `/slot/create/fromStock?stockId=${stock.stockId}`, { token: account.apiKey, body: { ...slotBody(account.appId), ...change } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_failed');
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect(await notificationCount(account.accountId)).toBe(0);
  });

  it('refuses a missing or malformed stockId (400 query.stockId)', async () => {
    const account = await newAccount();
    for (const suffix of ['', '?stockId=abc']) {
      const response = await call('POST', `/slot/create/fromStock${suffix}`, { token: account.apiKey, body: slotBody(account.appId) });
      expect(response.status).toBe(400);
      expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain('query.stockId');
    }
  });
});
