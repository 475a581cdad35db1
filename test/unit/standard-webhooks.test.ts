import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  buildWebhookHeaders,
  clockSkewToleranceSeconds,
  decodeWebhookSecret,
  generateWebhookSecret,
  replayWindowSeconds,
  signWebhook,
  verifyWebhook,
  type WebhookVerifyInput,
} from '../../src/security/standard-webhooks.ts';

// The example published with the spec, so we know we agree with everyone else and not just with ourselves.
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const otherSecret = generateWebhookSecret();

function signedDelivery(overrides: Partial<WebhookVerifyInput> = {}): WebhookVerifyInput {
  return {
    headers: { id: vector.id, timestamp: String(vector.timestamp), signature: vector.signature },
    body: vector.body,
    secrets: [vector.secret],
    now: vector.timestamp,
    ...overrides,
  };
}

function withHeaders(headers: WebhookVerifyInput['headers']): WebhookVerifyInput {
  return signedDelivery({ headers: { ...signedDelivery().headers, ...headers } });
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

describe('standard webhooks: signing', () => {
  it('reproduces the published test vector', () => {
    expect(signWebhook({ id: vector.id, timestamp: vector.timestamp, body: vector.body, secrets: [vector.secret] })).toBe(vector.signature);
    expect(signWebhook({ id: vector.id, timestamp: vector.timestamp, body: Buffer.from(vector.body), secrets: [vector.secret] })).toBe(
      vector.signature,
    );
  });

  it('signs once per active secret, space-separated, in the order given', () => {
    const header = signWebhook({ id: vector.id, timestamp: vector.timestamp, body: vector.body, secrets: [otherSecret, vector.secret] });
    const entries = header.split(' ');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(entries[1]).toBe(vector.signature);
  });

  it('signs the exact bytes of a Buffer body, not a re-decoded string', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const header = signWebhook({ id: 'msg_1', timestamp: 1, body: bytes, secrets: [vector.secret] });
    const expected = createHmac('sha256', decodeWebhookSecret(vector.secret))
      .update(Buffer.concat([Buffer.from('msg_1.1.'), bytes]))
      .digest('base64');
    expect(header).toBe(`v1,${expected}`);
    expect(header).not.toBe(signWebhook({ id: 'msg_1', timestamp: 1, body: bytes.toString(), secrets: [vector.secret] }));
  });

  it('builds the delivery headers', () => {
    expect(buildWebhookHeaders({ id: vector.id, timestamp: vector.timestamp, body: vector.body, secrets: [vector.secret] })).toEqual({
      'webhook-id': vector.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': vector.signature,
      'content-type': 'application/json',
    });
  });

  it('refuses to sign without a secret or with a timestamp that is not whole seconds', () => {
    expect(() => signWebhook({ id: 'msg_1', timestamp: 1, body: '{}', secrets: [] })).toThrow(/at least one secret/);
    expect(() => signWebhook({ id: 'msg_1', timestamp: 1_767_225_600.5, body: '{}', secrets: [vector.secret] })).toThrow(/unix seconds/);
    expect(() => signWebhook({ id: 'msg_1', timestamp: -1, body: '{}', secrets: [vector.secret] })).toThrow(/unix seconds/);
  });
});

describe('standard webhooks: secrets', () => {
  it('generates whsec_ secrets holding 32 random bytes', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(decodeWebhookSecret(secret)).toHaveLength(32);
    }
  });

  it('decodes the published 24-byte secret', () => {
    expect(decodeWebhookSecret(vector.secret)).toHaveLength(24);
  });

  it.each([
    ['no prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', /start with "whsec_"/],
    ['another prefix', 'wh_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', /start with "whsec_"/],
    ['nothing after the prefix', 'whsec_', /base64/],
    ['characters outside base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La!aSw', /base64/],
    ['base64url instead of base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La_aSw', /base64/],
    ['missing padding', `whsec_${Buffer.alloc(32, 1).toString('base64').replace(/=+$/, '')}`, /base64/],
    ['a key that is too short', `whsec_${Buffer.alloc(23, 1).toString('base64')}`, /at least 24 bytes/],
  ])('rejects a secret with %s', (_case, secret, message) => {
    expect(() => decodeWebhookSecret(secret)).toThrow(message);
  });
});

describe('standard webhooks: verification', () => {
  it('accepts the published test vector', () => {
    expect(verifyWebhook(signedDelivery())).toEqual({ ok: true });
    expect(verifyWebhook(signedDelivery({ body: Buffer.from(vector.body) }))).toEqual({ ok: true });
  });

  it('defaults the tolerance to the replay window plus the clock-skew allowance', () => {
    expect(replayWindowSeconds).toBe(300);
    expect(clockSkewToleranceSeconds).toBe(30);
  });

  it.each([
    ['exactly the tolerance in the past', vector.timestamp + 330, true],
    ['exactly the tolerance in the future', vector.timestamp - 330, true],
    ['just inside the replay window', vector.timestamp + 301, true],
    ['one second too old', vector.timestamp + 331, false],
    ['one second too new', vector.timestamp - 331, false],
    ['an hour old', vector.timestamp + 3600, false],
  ])('judges a delivery signed %s', (_case, now, accepted) => {
    expect(verifyWebhook(signedDelivery({ now }))).toEqual(accepted ? { ok: true } : { ok: false, reason: 'timestamp_out_of_window' });
  });

  it('honours a custom tolerance', () => {
    expect(verifyWebhook(signedDelivery({ now: vector.timestamp + 10, toleranceSeconds: 5 }))).toEqual({
      ok: false,
      reason: 'timestamp_out_of_window',
    });
  });

  it('uses the clock when no time is given', () => {
    expect(verifyWebhook(signedDelivery({ now: undefined }))).toEqual({ ok: false, reason: 'timestamp_out_of_window' });
    const timestamp = nowSeconds();
    const headers = buildWebhookHeaders({ id: 'msg_now', timestamp, body: '{}', secrets: [vector.secret] });
    expect(
      verifyWebhook({
        headers: { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'] },
        body: '{}',
        secrets: [vector.secret],
      }),
    ).toEqual({ ok: true });
  });

  it.each([
    ['a tampered body', signedDelivery({ body: '{"test": 2432232315}' })],
    ['a wrong secret', signedDelivery({ secrets: [otherSecret] })],
    ['a wrong id', withHeaders({ id: 'msg_someone_else' })],
    ['only a v2 signature', withHeaders({ signature: vector.signature.replace('v1,', 'v2,') })],
    ['no version prefix', withHeaders({ signature: vector.signature.slice(3) })],
    ['garbage base64', withHeaders({ signature: 'v1,not*base64*at*all' })],
    ['an empty v1 signature', withHeaders({ signature: 'v1,' })],
    ['a truncated signature', withHeaders({ signature: vector.signature.slice(0, 20) })],
    ['a signature padded with junk', withHeaders({ signature: `${vector.signature}AAAA` })],
    ['base64url spelling of the right bytes', withHeaders({ signature: `v1,${Buffer.from(vector.signature.slice(3), 'base64').toString('base64url')}` })],
    ['a valid signature over a different timestamp spelling', withHeaders({ timestamp: `0${vector.timestamp}` })],
  ])('rejects %s as invalid_signature', (_case, input) => {
    expect(verifyWebhook(input)).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it.each([
    ['letters', '1614265330abc'],
    ['a sign', '-1614265330'],
    ['a plus sign', '+1614265330'],
    ['a fraction', '1614265330.5'],
    ['surrounding spaces', ' 1614265330'],
    ['an ISO date', '2021-02-25T15:02:10Z'],
  ])('rejects a timestamp with %s as invalid_timestamp', (_case, timestamp) => {
    expect(verifyWebhook(withHeaders({ timestamp }))).toEqual({ ok: false, reason: 'invalid_timestamp' });
  });

  it.each(['id', 'timestamp', 'signature'] as const)('rejects a missing or empty %s header as missing_headers', (header) => {
    const absent = { ...signedDelivery().headers };
    delete absent[header];
    expect(verifyWebhook(signedDelivery({ headers: absent }))).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verifyWebhook(withHeaders({ [header]: '' }))).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it('checks headers, then timestamp format, then the window, then the signature', () => {
    const badEverything = { id: 'msg_x', timestamp: 'soon', signature: 'v1,AAAA' };
    expect(verifyWebhook(signedDelivery({ headers: { ...badEverything, id: '' } }))).toEqual({ ok: false, reason: 'missing_headers' });
    expect(verifyWebhook(signedDelivery({ headers: badEverything }))).toEqual({ ok: false, reason: 'invalid_timestamp' });
    expect(verifyWebhook(signedDelivery({ headers: { ...badEverything, timestamp: '1' } }))).toEqual({
      ok: false,
      reason: 'timestamp_out_of_window',
    });
  });

  it('accepts when any of several signatures matches, skipping other versions and junk', () => {
    const wrong = signWebhook({ id: vector.id, timestamp: vector.timestamp, body: vector.body, secrets: [otherSecret] });
    expect(verifyWebhook(withHeaders({ signature: `${wrong} ${vector.signature}` }))).toEqual({ ok: true });
    expect(verifyWebhook(withHeaders({ signature: `v1a,c29tZXRoaW5n v2,${vector.signature.slice(3)} v1,!!! ${vector.signature}` }))).toEqual({
      ok: true,
    });
  });

  it('accepts a delivery signed with either secret during rotation', () => {
    const rotating = [vector.secret, otherSecret];
    const signedWithOld = signedDelivery({ secrets: rotating });
    const newSignature = signWebhook({ id: vector.id, timestamp: vector.timestamp, body: vector.body, secrets: [otherSecret] });
    expect(verifyWebhook(signedWithOld)).toEqual({ ok: true });
    expect(verifyWebhook({ ...signedWithOld, headers: { ...signedWithOld.headers, signature: newSignature } })).toEqual({ ok: true });
    expect(verifyWebhook({ ...signedWithOld, headers: { ...signedWithOld.headers, signature: newSignature }, secrets: [vector.secret] })).toEqual({
      ok: false,
      reason: 'invalid_signature',
    });
  });

  it('treats a missing or malformed secret as a configuration error', () => {
    expect(() => verifyWebhook(signedDelivery({ secrets: [] }))).toThrow(/at least one secret/);
    expect(() => verifyWebhook(signedDelivery({ secrets: ['not-a-secret'] }))).toThrow(/whsec_/);
  });
});

describe('standard webhooks: interoperability with the reference library', () => {
  const body = JSON.stringify({ type: 'message.delivered', data: { id: 'msg_42', note: 'héllo ✓' } });

  it('the reference verifier accepts what we sign', () => {
    const headers = buildWebhookHeaders({ id: 'msg_interop', timestamp: nowSeconds(), body, secrets: [vector.secret] });
    expect(new Webhook(vector.secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(vector.secret).verify(Buffer.from(body), headers)).toEqual(JSON.parse(body));
  });

  it('the reference verifier accepts either secret of a rotation we sign with', () => {
    const headers = buildWebhookHeaders({ id: 'msg_rotation', timestamp: nowSeconds(), body, secrets: [vector.secret, otherSecret] });
    expect(new Webhook(vector.secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(otherSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(/No matching signature/);
  });

  it('we accept what the reference library signs', () => {
    const timestamp = nowSeconds();
    const signature = new Webhook(otherSecret).sign('msg_reference', new Date(timestamp * 1000), body);
    const input = { headers: { id: 'msg_reference', timestamp: String(timestamp), signature }, body, secrets: [otherSecret] };
    expect(verifyWebhook(input)).toEqual({ ok: true });
    expect(verifyWebhook({ ...input, secrets: [vector.secret, otherSecret] })).toEqual({ ok: true });
    expect(verifyWebhook({ ...input, body: `${body} ` })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('agrees with the reference library on the published vector', () => {
    expect(new Webhook(vector.secret).sign(vector.id, new Date(vector.timestamp * 1000), vector.body)).toBe(vector.signature);
  });
});
