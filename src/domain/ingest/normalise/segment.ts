import type { ErrorDetail } from '../../errors.ts';
import {
  clientUserIdMaxLength,
  emailSchema,
  envelopeVersion,
  eventTypeMaxLength,
  maxBatchSize,
  messageIdMaxLength,
  phoneSchema,
  type InboundEnvelope,
  type NormaliseResult,
} from './envelope.ts';
import { applyAttributeMapping, assignOwn, checkText, identifierText, isJsonObject, nonEmpty, parseInstant, type JsonObject } from './fields.ts';
import { readPath } from '../../../sandbox-safe/field-path.ts';

// Segment's spec (track, identify, page, screen, and batches of them). RudderStack implements the same spec, so
// this file holds the logic for both and takes a dialect for what differs between them.

export type SpecDialect = {
  /** How error messages name the sender. */
  name: string;
};

export const segmentDialect: SpecDialect = { name: 'Segment' };

export function normaliseSegment(body: unknown, mapping: Record<string, string>, now: Date): NormaliseResult {
  return normaliseSpecPayload(segmentDialect, body, mapping, now);
}

const supportedTypes = ['track', 'identify', 'page', 'screen'] as const;
type SupportedType = (typeof supportedTypes)[number];
// Spec calls about identity plumbing rather than something that happened to a user: nothing to start a journey on.
const refusedTypes = ['group', 'alias'];
/** Most specific first: `timestamp` is the sender's corrected time, then the device clock, then transport times. */
const timeFields = ['timestamp', 'originalTimestamp', 'sentAt', 'receivedAt'] as const;

type CallResult = { ok: true; event: InboundEnvelope } | { ok: false; details: ErrorDetail[] };

/** One call, or `{ batch: [...] }`. A batch is all or nothing, so a retry never replays half of one. */
export function normaliseSpecPayload(dialect: SpecDialect, body: unknown, mapping: Record<string, string>, now: Date): NormaliseResult {
  if (!isJsonObject(body)) return { ok: false, details: [{ path: 'body', message: 'must be a JSON object' }] };
  // Batch-level `context` and `integrations` are ignored: each item is read on its own, as it would be if sent alone.
  if (!Object.hasOwn(body, 'batch')) {
    const result = normaliseCall(dialect, body, 'body', mapping, now);
    return result.ok ? { ok: true, events: [result.event] } : result;
  }

  const batch = body.batch;
  if (!Array.isArray(batch)) return fail('body.batch', `must be an array of ${dialect.name} calls`);
  if (batch.length === 0) return fail('body.batch', 'must contain at least one call');
  if (batch.length > maxBatchSize) return fail('body.batch', `must contain at most ${maxBatchSize} calls, got ${batch.length}`);

  const events: InboundEnvelope[] = [];
  const details: ErrorDetail[] = [];
  batch.forEach((item: unknown, index) => {
    const result = normaliseCall(dialect, item, `body.batch.${index}`, mapping, now);
    if (result.ok) events.push(result.event);
    else details.push(...result.details);
  });
  return details.length > 0 ? { ok: false, details } : { ok: true, events };
}

function normaliseCall(dialect: SpecDialect, call: unknown, at: string, mapping: Record<string, string>, now: Date): CallResult {
  if (!isJsonObject(call)) return fail(at, `must be a ${dialect.name} call (a JSON object)`);
  const type = call.type;
  if (type === undefined || type === null) return fail(`${at}.type`, 'is required');
  if (typeof type === 'string' && refusedTypes.includes(type)) {
    return fail(`${at}.type`, `${type} calls are not supported; send ${supportedTypes.join(', ')}`);
  }
  if (!isSupportedType(type)) return fail(`${at}.type`, `must be one of ${supportedTypes.join(', ')}`);

  const details: ErrorDetail[] = [];
  const text = (field: string, maxLength: number, missing: string): string | undefined => {
    const value = call[field];
    const checked = value === undefined || value === null ? { ok: false as const, message: missing } : checkText(value, maxLength);
    if (!checked.ok) details.push({ path: `${at}.${field}`, message: checked.message });
    return checked.ok ? checked.value : undefined;
  };

  const messageId = text('messageId', messageIdMaxLength, 'is required: it is what makes a retried call safe to accept twice');
  // Page and screen keep their bare type as the event name and carry the page's name as an attribute: one event
  // type per kind of call is what journeys trigger on, while "page:Pricing" would mint a type per page of a site.
  const eventType = type === 'track' ? text('event', eventTypeMaxLength, 'is required for track calls') : type;
  const occurredAt = readOccurredAt(call, at, now, details);
  const clientUserId = readClientUserId(call, at, details);
  if (details.length > 0 || messageId === undefined || eventType === undefined || occurredAt === undefined) {
    return { ok: false, details };
  }

  const event: InboundEnvelope = {
    version: envelopeVersion,
    messageId,
    occurredAt,
    eventType,
    ...(clientUserId !== undefined ? { clientUserId } : {}),
    ...nonEmpty('attributes', readAttributes(call, type, mapping)),
    ...nonEmpty('endpoints', readEndpoints(call)),
    raw: call,
  };
  return { ok: true, event };
}

function isSupportedType(type: unknown): type is SupportedType {
  return supportedTypes.some((supported) => supported === type);
}

function fail(path: string, message: string): { ok: false; details: ErrorDetail[] } {
  return { ok: false, details: [{ path, message }] };
}

/**
 * The first time field present wins, and a malformed one is an error rather than a reason to try the next: a
 * broken clock upstream should be seen, not papered over with a later, less accurate time.
 */
function readOccurredAt(call: JsonObject, at: string, now: Date, details: ErrorDetail[]): string | undefined {
  const field = timeFields.find((name) => call[name] !== undefined && call[name] !== null);
  if (field === undefined) return now.toISOString();
  const instant = parseInstant(call[field]);
  if (instant === undefined) {
    details.push({ path: `${at}.${field}`, message: 'must be an ISO-8601 date-time with a time zone, e.g. 2026-01-01T10:00:00Z' });
  }
  return instant?.toISOString();
}

/** Anonymous calls carry no userId (SDKs sometimes send null or ""); they stay anonymous rather than failing. */
function readClientUserId(call: JsonObject, at: string, details: ErrorDetail[]): string | undefined {
  const userId = call.userId;
  if (userId === undefined || userId === null || userId === '') return undefined;
  const checked = checkText(userId, clientUserIdMaxLength);
  if (!checked.ok) details.push({ path: `${at}.userId`, message: checked.message });
  return checked.ok ? checked.value : undefined;
}

/**
 * Lowest precedence first: the user's standing traits from context, then what this call says (an identify's
 * traits, otherwise its properties), then the fields we derive, and the connection's mapping over everything.
 */
function readAttributes(call: JsonObject, type: SupportedType, mapping: Record<string, string>): JsonObject {
  const attributes: JsonObject = {};
  assignOwn(attributes, readPath(call, 'context.traits'));
  assignOwn(attributes, type === 'identify' ? call.traits : call.properties);
  const anonymousId = identifierText(call.anonymousId);
  if (anonymousId) attributes.anonymousId = anonymousId;
  if ((type === 'page' || type === 'screen') && typeof call.name === 'string' && call.name !== '') attributes.name = call.name;
  applyAttributeMapping(attributes, call, mapping);
  return attributes;
}

/**
 * Traits are whatever the sender's code put there, so a malformed e-mail or phone is dropped from the endpoints
 * (it stays visible in attributes) instead of failing an event that is otherwise fine.
 */
function readEndpoints(call: JsonObject): { email?: string; phone?: string } {
  const endpoints: { email?: string; phone?: string } = {};
  const email = firstValid(call, 'email', (value) => emailSchema.safeParse(value).success);
  const phone = firstValid(call, 'phone', (value) => phoneSchema.safeParse(value).success);
  if (email !== undefined) endpoints.email = email;
  if (phone !== undefined) endpoints.phone = phone;
  return endpoints;
}

function firstValid(call: JsonObject, trait: string, valid: (value: unknown) => boolean): string | undefined {
  const candidates = [readPath(call, `traits.${trait}`), readPath(call, `context.traits.${trait}`)];
  return candidates.find((value): value is string => typeof value === 'string' && valid(value));
}
