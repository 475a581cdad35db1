import { describe, expect, it } from 'vitest';
import { call, newAccount, sampleMessage, type ApiResponse, type TestAccount } from '../support/api.ts';
import { directEvent, newConnection, postSigned, waitForEvent } from '../support/ingest.ts';
import { fileRow } from '../support/files.ts';
import { expectError, ok } from '../support/http-assertions.ts';

// Postgres cannot store U+0000 in text or jsonb, and jsonb refuses a lone surrogate (JSON.stringify sends '\ud800' as
// the escape "\ud800", which JSON.parse on the server turns back into a lone surrogate). Every such string, value or
// key, anywhere in a request, is a 400 validation_failed naming where it is; real non-ASCII text is stored as sent.

const nul = '\u0000';
const loneSurrogate = '\ud800';
/** Emoji (a surrogate pair), CJK, and U+FFFD, which is what invalid UTF-8 bytes decode to. */
const unicode = 'Grüße 😀 名前 \ufffd';

const problems = { nul: /U\+0000 \(NUL\)/, surrogate: /lone UTF-16 surrogate/ };

function expectRefused(response: ApiResponse, path: string, problem: keyof typeof problems) {
  const error = expectError(response, 400, 'validation_failed');
  expect(error.details).toContainEqual({ path, message: expect.stringMatching(problems[problem]) });
}

const post = (account: TestAccount, path: string, body: unknown) => call('POST', path, { token: account.apiKey, body });

describe('text that cannot be stored is refused with 400, never 500', () => {
  it('POST /notification/create: in title, in a key and in a value inside about', async () => {
    const account = await newAccount();
    const message = (fields: Record<string, unknown>) => ({ ...sampleMessage(account.appId), ...fields });
    expectRefused(await post(account, '/notification/create', message({ title: `Sale${nul}` })), 'body.title', 'nul');
    expectRefused(await post(account, '/notification/create', message({ about: [{ [`x${nul}`]: 1 }] })), 'body.about.0["x\\u0000"]', 'nul');
    expectRefused(await post(account, '/notification/create', message({ about: [{ note: `a${loneSurrogate}b` }] })), 'body.about.0.note', 'surrogate');
    expectRefused(await post(account, '/notification/create', message({ title: loneSurrogate })), 'body.title', 'surrogate');

    const stored = ok(await post(account, '/notification/create', message({ title: unicode, about: [{ [unicode]: unicode }] })), 201);
    expect(stored).toMatchObject({ title: unicode, about: [{ [unicode]: unicode }] });
    expect(ok(await call('GET', `/notification/get?id=${stored.id}`, { token: account.apiKey }))).toMatchObject({ title: unicode, about: [{ [unicode]: unicode }] });
  });

  it('POST /stock/create: in title', async () => {
    const account = await newAccount();
    const { fileId } = await fileRow(account);
    const stock = (title: string) => ({ appId: account.appId, title, fileId });
    expectRefused(await post(account, '/stock/create', stock(`Jingle${nul}`)), 'body.title', 'nul');
    expectRefused(await post(account, '/stock/create', stock(`Jingle${loneSurrogate}`)), 'body.title', 'surrogate');
    expect(ok(await post(account, '/stock/create', stock(unicode)), 201).title).toBe(unicode);
  });

  it('POST /slot/create/fromStock: in a key and in a value inside about', async () => {
    const account = await newAccount();
    const { stockId } = ok(await post(account, '/stock/create', { appId: account.appId, title: 'Jingle', fileId: (await fileRow(account)).fileId }), 201);
    const slot = (about: unknown[]) => post(account, `/slot/create/fromStock?stockId=${stockId}`, { appId: account.appId, title: 'From stock', about });
    expectRefused(await slot([{ tags: ['ok', `bad${nul}`] }]), 'body.about.0.tags.1', 'nul');
    expectRefused(await slot([{ [`${loneSurrogate}key`]: true }]), 'body.about.0["\\ud800key"]', 'surrogate');
    expect(ok(await slot([{ [unicode]: [unicode] }]), 201).notification.about).toEqual([{ [unicode]: [unicode] }]);
  });

  it('POST /accounts/{accountId}/connections: in a key and in a value of mapping', async () => {
    const account = await newAccount();
    const connection = (mapping: Record<string, string>) => post(account, `/accounts/${account.accountId}/connections`, { provider: 'webhook', label: 'Shop', mapping });
    expectRefused(await connection({ [`pl${nul}an`]: 'properties.plan' }), 'body.mapping["pl\\u0000an"]', 'nul');
    expectRefused(await connection({ plan: `properties.${loneSurrogate}` }), 'body.mapping.plan', 'surrogate');
    expect(ok(await connection({ [unicode]: `properties.${unicode}` }), 201).mapping).toEqual({ [unicode]: `properties.${unicode}` });
  });

  it('POST /accounts/{accountId}/visitors: in a key and in a value of attributes', async () => {
    const account = await newAccount();
    const visitor = (attributes: Record<string, unknown>) => post(account, `/accounts/${account.accountId}/visitors`, { clientUserId: 'user-1', attributes });
    expectRefused(await visitor({ name: `Ann${nul}` }), 'body.attributes.name', 'nul');
    expectRefused(await visitor({ [`na${nul}me`]: 'Ann' }), 'body.attributes["na\\u0000me"]', 'nul');
    expectRefused(await visitor({ name: { first: loneSurrogate } }), 'body.attributes.name.first', 'surrogate');
    expect(ok(await visitor({ name: unicode }), 201).attributes).toEqual({ name: unicode });
  });

  it('names every bad string of one body, in document order', async () => {
    const account = await newAccount();
    const response = await post(account, '/notification/create', { ...sampleMessage(account.appId), title: nul, about: [{ [nul]: loneSurrogate }] });
    const error = expectError(response, 400, 'validation_failed');
    expect(error.details!.map((detail) => detail.path)).toEqual(['body.title', 'body.about.0["\\u0000"]', 'body.about.0["\\u0000"]']);
    expect(error.details![1]!.message).toMatch(/^this key /);
  });

  it('refuses NUL in a query string and in a path parameter', async () => {
    const account = await newAccount();
    const events = await call('GET', `/accounts/${account.accountId}/events?clientUserId=a%00b`, { token: account.apiKey });
    expectRefused(events, 'query.clientUserId', 'nul');
    const connection = await call('GET', `/accounts/${account.accountId}/connections/conn_%00`, { token: account.apiKey });
    expectRefused(connection, 'params.connectionId', 'nul');
  });

  it('refuses a body nested more than 32 levels deep, which would exhaust a stack further on', async () => {
    const account = await newAccount();
    // Written out by hand: JSON.stringify itself recurses, and 10,000 levels exhaust this side's stack too.
    const nested = `${'['.repeat(10_000)}"deep"${']'.repeat(10_000)}`;
    const rawBody = JSON.stringify({ ...sampleMessage(account.appId), about: 'NESTED' }).replace('"NESTED"', `[${nested}]`);
    const response = await call('POST', '/notification/create', { token: account.apiKey, rawBody, headers: { 'content-type': 'application/json' } });
    const error = expectError(response, 400, 'validation_failed');
    expect(error.details).toEqual([{ path: `body.about${'.0'.repeat(31)}`, message: 'nests more than 32 levels deep' }]);
  });
});

describe('POST /v1/in/{inboundKey}: text that cannot be stored is refused after the signature is checked', () => {
  it.each([
    ['clientUserId', { clientUserId: `user${nul}` }, 'body.clientUserId', 'nul'],
    ['eventType', { eventType: `order${nul}completed` }, 'body.eventType', 'nul'],
    ['a key of attributes', { attributes: { [`pl${nul}an`]: 'gold' } }, 'body.attributes["pl\\u0000an"]', 'nul'],
    ['a value of attributes', { attributes: { plan: loneSurrogate } }, 'body.attributes.plan', 'surrogate'],
    ['a value inside raw', { raw: { order: { note: `gift${nul}` } } }, 'body.raw.order.note', 'nul'],
    ['a key inside raw', { raw: { [`${loneSurrogate}`]: 1 } }, 'body.raw["\\ud800"]', 'surrogate'],
  ] as const)('refuses it in %s with 400', async (_where, fields, path, problem) => {
    const account = await newAccount();
    const connection = await newConnection(account);
    expectRefused(await postSigned(connection, directEvent(fields)), path, problem);
  });

  it('checks the signature first: a wrong signature over such a body is 401', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const response = await postSigned(connection, directEvent({ eventType: nul }), { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    expectError(response, 401, 'invalid_signature');
  });

  it('stores real non-ASCII text as sent (202)', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const event = directEvent({ clientUserId: unicode, eventType: `order.${unicode}`, attributes: { [unicode]: unicode }, raw: { note: unicode } });
    ok(await postSigned(connection, event), 202);
    const stored = await waitForEvent(account, event.messageId, 'PROCESSED');
    expect(stored).toMatchObject({ clientUserId: unicode, eventType: `order.${unicode}`, attributes: { [unicode]: unicode } });
  });
});
