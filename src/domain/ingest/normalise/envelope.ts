import { z } from 'zod';
import type { ErrorDetail } from '../../errors.ts';

// The inbound envelope (version 1) every provider's payload is turned into. The `direct` provider sends it as is;
// the others are translated, and their results must satisfy the same limits.

export const providers = ['direct', 'webhook', 'segment', 'rudderstack'] as const;
export type Provider = (typeof providers)[number];

export interface InboundEnvelope {
  version: '1';
  /** Stable across the sender's retries: it is the idempotency key. */
  messageId: string;
  /** Always UTC, in `Date#toISOString()` form, whatever offset the sender used. */
  occurredAt: string;
  eventType: string;
  clientUserId?: string;
  attributes?: Record<string, unknown>;
  endpoints?: { email?: string; phone?: string };
  /** The payload as the provider sent it; for a batch, the single item. */
  raw?: Record<string, unknown>;
}

export type NormaliseResult = { ok: true; events: InboundEnvelope[] } | { ok: false; details: ErrorDetail[] };

export type NormaliseOptions = {
  /** When the request arrived: the fallback for events that carry no time of their own. */
  now: Date;
};

export const envelopeVersion = '1';
export const messageIdMaxLength = 255;
export const eventTypeMaxLength = 200;
export const clientUserIdMaxLength = 255;
/** One request may carry this many events; more would let a single call hold the ingest path for too long. */
export const maxBatchSize = 500;

// Loose on purpose: a phone number arrives formatted for people ("+44 (0)20 7946-0000"); it is checked, not rewritten.
export const phonePattern = /^\+?[0-9 ()-]{5,32}$/;

/** Custom messages, because "Invalid input: expected string, received undefined" reads badly in an API error. */
function text(max: number) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);
}

const object = z.record(z.string(), z.unknown(), { error: 'must be an object' });

/**
 * Dot-atom local part, then host labels of 1 to 63 letters, digits and inner hyphens, then a top-level name. With the
 * RFC 5321 lengths below it accepts only what JSON Schema's `format: email` accepts, so the OpenAPI document is exact.
 */
const emailPattern = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
const emailLengthsFit = (email: string) => {
  const at = email.lastIndexOf('@');
  return at <= 64 && email.length - at - 1 <= 253;
};
export const emailSchema = z
  .email({ pattern: emailPattern, error: 'must be an e-mail address' })
  .refine(emailLengthsFit, 'must be an e-mail address: at most 64 characters before the @ and 253 after it');
export const phoneSchema = z
  .string({ error: 'must be a string' })
  .regex(phonePattern, 'must be a phone number: digits, spaces, brackets and dashes, optionally after a leading +');

/** ISO-8601 with a Z or an offset: a time without one would be read in whatever zone this process runs in. */
export const instantSchema = z.iso.datetime({
  offset: true,
  error: 'must be an ISO-8601 date-time with a time zone, e.g. 2026-01-01T10:00:00Z',
});

export const directEnvelopeSchema = z.strictObject({
  version: z.literal(envelopeVersion, { error: `must be the string "${envelopeVersion}"` }),
  messageId: text(messageIdMaxLength),
  occurredAt: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .pipe(instantSchema)
    .transform((value) => new Date(value).toISOString()),
  eventType: text(eventTypeMaxLength),
  clientUserId: text(clientUserIdMaxLength).optional(),
  attributes: object.optional(),
  endpoints: z
    .strictObject({ email: emailSchema.optional(), phone: phoneSchema.optional() }, { error: 'must be an object' })
    .optional(),
  raw: object.optional(),
});
