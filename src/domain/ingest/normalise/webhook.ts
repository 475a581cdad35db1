import type { ErrorDetail } from '../../errors.ts';
import {
  clientUserIdMaxLength,
  emailSchema,
  envelopeVersion,
  eventTypeMaxLength,
  messageIdMaxLength,
  phoneSchema,
  type InboundEnvelope,
  type NormaliseResult,
} from './envelope.ts';
import { applyAttributeMapping, checkText, isJsonObject, nonEmpty, parseInstant, type JsonObject } from './fields.ts';
import { detailPath } from './detail-path.ts';
import { readPath } from '../../../sandbox-safe/field-path.ts';

// A generic webhook is any JSON object; the connection's mapping says where the envelope's fields are in it.
// Every problem is collected before answering, so a sender fixes its payload (or its mapping) in one round.

type Target = 'messageId' | 'eventType' | 'occurredAt' | 'clientUserId' | 'email' | 'phone';

const targetDescriptions: Record<'messageId' | 'eventType', string> = {
  messageId: "the path of the event's unique, retry-stable id in the body",
  eventType: "the path of the event's name in the body",
};

export function normaliseWebhook(body: unknown, mapping: Record<string, string>, now: Date): NormaliseResult {
  if (!isJsonObject(body)) return { ok: false, details: [{ path: 'body', message: 'must be a JSON object' }] };
  const details: ErrorDetail[] = [];

  /** The mapped value and where it sits, or undefined when the mapping does not name this target. */
  const mapped = (target: Target): { value: unknown; at: string } | undefined => {
    const path = mapping[target];
    return path === undefined ? undefined : { value: readPath(body, path), at: detailPath('body', path) };
  };

  const requiredText = (target: 'messageId' | 'eventType', maxLength: number): string | undefined => {
    const source = mapped(target);
    if (source === undefined) {
      details.push({ path: `mapping.${target}`, message: `the connection's mapping must define ${target}: ${targetDescriptions[target]}` });
      return undefined;
    }
    if (source.value === undefined || source.value === null) {
      details.push({ path: source.at, message: `is required: the connection maps ${target} here` });
      return undefined;
    }
    const checked = checkText(source.value, maxLength);
    if (!checked.ok) details.push({ path: source.at, message: checked.message });
    return checked.ok ? checked.value : undefined;
  };

  const messageId = requiredText('messageId', messageIdMaxLength);
  const eventType = requiredText('eventType', eventTypeMaxLength);
  const occurredAt = readOccurredAt(mapped('occurredAt'), now, details);
  const clientUserId = readClientUserId(mapped('clientUserId'), details);
  const endpoints = readEndpoints(mapped('email'), mapped('phone'), details);

  if (details.length > 0 || messageId === undefined || eventType === undefined || occurredAt === undefined) {
    return { ok: false, details };
  }
  const attributes: JsonObject = {};
  applyAttributeMapping(attributes, body, mapping);
  const event: InboundEnvelope = {
    version: envelopeVersion,
    messageId,
    occurredAt,
    eventType,
    ...(clientUserId !== undefined ? { clientUserId } : {}),
    ...nonEmpty('attributes', attributes),
    ...nonEmpty('endpoints', endpoints),
    raw: body,
  };
  return { ok: true, events: [event] };
}

type Source = { value: unknown; at: string } | undefined;

/** Unmapped means the payload has no time of its own, so the arrival time stands in; mapped means it must be there. */
function readOccurredAt(source: Source, now: Date, details: ErrorDetail[]): string | undefined {
  if (source === undefined) return now.toISOString();
  if (source.value === undefined || source.value === null) {
    details.push({ path: source.at, message: 'is required: the connection maps occurredAt here' });
    return undefined;
  }
  const instant = parseInstant(source.value);
  if (instant === undefined) {
    details.push({
      path: source.at,
      message: 'must be an ISO-8601 date-time with a time zone (e.g. 2026-01-01T10:00:00Z) or epoch seconds or milliseconds',
    });
  }
  return instant?.toISOString();
}

/** Anonymous events are normal, so a missing (or empty) user id leaves clientUserId out instead of failing. */
function readClientUserId(source: Source, details: ErrorDetail[]): string | undefined {
  if (source === undefined || source.value === undefined || source.value === null || source.value === '') return undefined;
  const checked = checkText(source.value, clientUserIdMaxLength);
  if (!checked.ok) details.push({ path: source.at, message: checked.message });
  return checked.ok ? checked.value : undefined;
}

/**
 * A mapped endpoint that is absent is left out, but one that is present and malformed is an error: the operator
 * asked for this field to be a contact point, and dropping it silently would hide a broken mapping.
 */
function readEndpoints(email: Source, phone: Source, details: ErrorDetail[]): { email?: string; phone?: string } {
  const endpoints: { email?: string; phone?: string } = {};
  if (email !== undefined && email.value !== undefined && email.value !== null) {
    const checked = emailSchema.safeParse(email.value);
    if (checked.success) endpoints.email = checked.data;
    else details.push({ path: email.at, message: 'must be an e-mail address' });
  }
  if (phone !== undefined && phone.value !== undefined && phone.value !== null) {
    // Some systems store phone numbers as JSON numbers; a whole number's digits are as good as the string.
    const text = typeof phone.value === 'number' && Number.isSafeInteger(phone.value) && phone.value > 0 ? String(phone.value) : phone.value;
    const checked = phoneSchema.safeParse(text);
    if (checked.success) endpoints.phone = checked.data;
    else details.push({ path: phone.at, message: checked.error.issues[0]?.message ?? 'must be a phone number' });
  }
  return endpoints;
}
