import { describe, expect, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';

const expectErrorBody = (body: any, code: string) => {
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String), requestId: expect.any(String) }) });
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
};

describe('error responses', () => {
  it('answers an unknown route with 404 not_found', async () => {
    const response = await call('GET', '/no/such/route');
    expect(response.status).toBe(404);
    expectErrorBody(response.body, 'not_found');
  });

  it('answers a known path with the wrong method with 405 and an Allow header', async () => {
    const response = await call('DELETE', '/notification/create');
    expect(response.status).toBe(405);
    expectErrorBody(response.body, 'method_not_allowed');
    expect(response.headers.get('allow')).toContain('POST');
  });

  it('answers a malformed JSON body with 400 invalid_json', async () => {
    const { apiKey } = await newAccount();
    const response = await call('POST', '/notification/create', {
      token: apiKey,
      rawBody: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expectErrorBody(response.body, 'invalid_json');
  });

  it('answers a body that is not JSON with 415', async () => {
    const { apiKey } = await newAccount();
    const response = await call('POST', '/notification/create', {
      token: apiKey,
      rawBody: 'title=hello',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expectErrorBody(response.body, 'unsupported_media_type');
  });

  it('answers an oversized body with 413', async () => {
    const { apiKey } = await newAccount();
    const response = await call('POST', '/notification/create', {
      token: apiKey,
      rawBody: JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 10) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expectErrorBody(response.body, 'payload_too_large');
  });

  it('lists every invalid field under details', async () => {
    const { apiKey } = await newAccount();
    const response = await call('POST', '/notification/create', {
      token: apiKey,
      body: { appId: 'not-a-uuid', title: '', expiry: 'soon', action: 'Jump' },
    });
    expect(response.status).toBe(400);
    expectErrorBody(response.body, 'validation_failed');
    const paths = response.body.error.details.map((detail: { path: string }) => detail.path).sort();
    expect(paths).toEqual(['body.action', 'body.appId', 'body.expiry', 'body.title']);
  });

  it('gives a number out of range one message, the schema’s own bound', async () => {
    const { apiKey, appId } = await newAccount();
    // 1e30 is past both int()'s safe-integer bound and the schema's max: one detail, naming the max.
    const message = await call('POST', '/notification/create', { token: apiKey, body: { appId, title: 'T', playTime: 1e30, expiry: -1e30 } });
    expect(message.status).toBe(400);
    expect(message.body.error.details).toEqual([
      { path: 'body.expiry', message: 'Too small: expected number to be >=1' },
      { path: 'body.playTime', message: 'Too big: expected number to be <=8640000000000000' },
    ]);
  });

  it('rejects fields the schema does not know', async () => {
    const { apiKey, appId } = await newAccount();
    const response = await call('POST', '/notification/create', { token: apiKey, body: { appId, title: 'T', colour: 'red' } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'body' })]);
    expect(response.body.error.details[0].message).toContain('colour');
  });

  it('honours X-Request-Id when sent and echoes it in the header and the error body', async () => {
    const response = await call('GET', '/no/such/route', { headers: { 'x-request-id': 'client-trace-123' } });
    expect(response.headers.get('x-request-id')).toBe('client-trace-123');
    expect(response.body.error.requestId).toBe('client-trace-123');
  });

  it('generates a request id when none is sent, or when the sent one is unsafe to log', async () => {
    const plain = await call('GET', '/healthz');
    expect(plain.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await call('GET', '/no/such/route', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(unsafe.body.error.requestId).toBe(unsafe.headers.get('x-request-id'));
  });
});
