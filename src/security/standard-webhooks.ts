import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com), written once for both directions:
// we sign outbound deliveries and verify inbound ingest with the same code.

/** How old (or how far in the future) a delivery may be before it counts as a replay. */
export const replayWindowSeconds = 300;
/** Slack on top of the replay window, because the sender's clock and ours never agree exactly. */
export const clockSkewToleranceSeconds = 30;

const secretPrefix = 'whsec_';
const generatedSecretBytes = 32;
// The spec's own example secret is 24 bytes, so demanding 32 would refuse keys other senders issue.
const minimumSecretBytes = 24;
const signatureVersion = 'v1';
const sha256Bytes = 32;

export type WebhookSignInput = {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  body: string | Buffer;
  /** Every active secret: while a secret is rotated, receivers may hold either the old or the new one. */
  secrets: string[];
};

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
};

export type WebhookVerifyInput = {
  headers: { id?: string; timestamp?: string; signature?: string };
  body: Buffer | string;
  secrets: string[];
  /** Unix seconds; defaults to the clock. */
  now?: number;
  toleranceSeconds?: number;
};

export type WebhookVerifyFailure = 'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_window' | 'invalid_signature';

export type VerifyResult = { ok: true } | { ok: false; reason: WebhookVerifyFailure };

export function generateWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(generatedSecretBytes).toString('base64')}`;
}

/** The HMAC key inside a `whsec_…` secret. Throws, because a malformed secret is a configuration error, not bad input. */
export function decodeWebhookSecret(secret: string): Buffer {
  if (!secret.startsWith(secretPrefix)) throw new Error(`Webhook secret must start with "${secretPrefix}"`);
  const key = decodeStrictBase64(secret.slice(secretPrefix.length));
  if (key === undefined) throw new Error(`Webhook secret must be "${secretPrefix}" followed by standard, padded base64`);
  if (key.length < minimumSecretBytes) {
    throw new Error(`Webhook secret must hold at least ${minimumSecretBytes} bytes of key, got ${key.length}`);
  }
  return key;
}

/** The `webhook-signature` header value: one `v1,…` entry per secret, space-separated. */
export function signWebhook(input: WebhookSignInput): string {
  if (input.secrets.length === 0) throw new Error('Cannot sign a webhook without at least one secret');
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new Error(`Webhook timestamp must be whole unix seconds, got ${input.timestamp}`);
  }
  return input.secrets
    .map((secret) => `${signatureVersion},${hmac(hmacKeyOf(secret), input.id, String(input.timestamp), input.body).toString('base64')}`)
    .join(' ');
}

export function buildWebhookHeaders(input: WebhookSignInput): WebhookHeaders {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': signWebhook(input),
    'content-type': 'application/json',
  };
}

/**
 * Checks, in order: headers present, timestamp well-formed, timestamp inside the replay window, signature.
 * The order is part of the contract: a stale delivery is reported as stale even when its signature is also wrong.
 */
export function verifyWebhook(input: WebhookVerifyInput): VerifyResult {
  const { id, timestamp, signature } = input.headers;
  if (!id || !timestamp || !signature) return { ok: false, reason: 'missing_headers' };
  // parseInt would accept "1614265330abc" or "-5"; the spec's timestamp is plain digits.
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'invalid_timestamp' };

  const now = input.now ?? Math.floor(Date.now() / 1000);
  const tolerance = input.toleranceSeconds ?? replayWindowSeconds + clockSkewToleranceSeconds;
  if (Math.abs(now - Number(timestamp)) > tolerance) return { ok: false, reason: 'timestamp_out_of_window' };

  if (input.secrets.length === 0) throw new Error('Cannot verify a webhook without at least one secret');
  // Sign the timestamp exactly as sent: the sender signed the header text, leading zeros and all.
  const expected = input.secrets.map((secret) => hmac(hmacKeyOf(secret), id, timestamp, input.body));

  for (const entry of signature.split(' ')) {
    const comma = entry.indexOf(',');
    // Other versions (say v1a, asymmetric) may sit beside ours; they are not ours to judge.
    if (comma === -1 || entry.slice(0, comma) !== signatureVersion) continue;
    const candidate = decodeStrictBase64(entry.slice(comma + 1));
    // timingSafeEqual throws on unequal lengths, and a short signature cannot be right anyway.
    if (candidate?.length !== sha256Bytes) continue;
    if (expected.some((mac) => timingSafeEqual(mac, candidate))) return { ok: true };
  }
  return { ok: false, reason: 'invalid_signature' };
}

/** Secrets in use, as HMAC keys: at most this many are kept. */
const keptKeys = 1000;
const hmacKeys = new Map<string, KeyObject>();

/**
 * The HMAC key of a secret, made once and kept (the least recently used dropped beyond `keptKeys`): keying an HMAC
 * from a KeyObject costs a sixth of keying it from bytes, and every post and every delivery signs or verifies.
 */
function hmacKeyOf(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (key) {
    hmacKeys.delete(secret);
  } else {
    key = createSecretKey(decodeWebhookSecret(secret));
    if (hmacKeys.size >= keptKeys) hmacKeys.delete(hmacKeys.keys().next().value!);
  }
  hmacKeys.set(secret, key);
  return key;
}

function hmac(key: KeyObject, id: string, timestamp: string, body: string | Buffer): Buffer {
  // The body goes in as bytes: re-decoding a Buffer to a string would mangle anything that is not valid UTF-8.
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest();
}

/** Buffer.from(…, 'base64') silently skips junk and accepts base64url; only the canonical spelling is accepted here. */
function decodeStrictBase64(value: string): Buffer | undefined {
  if (value.length === 0) return undefined;
  const decoded = Buffer.from(value, 'base64');
  return decoded.toString('base64') === value ? decoded : undefined;
}
