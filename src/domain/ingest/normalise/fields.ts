import { instantSchema } from './envelope.ts';
import { readPath } from '../../../sandbox-safe/field-path.ts';

// Small readers shared by the providers that translate a foreign payload into the envelope.

export type JsonObject = Record<string, unknown>;

/**
 * Mapping keys that name envelope fields rather than attributes. Only the webhook provider reads them; the others
 * take those fields from their own spec, and never store the keys as attributes either.
 */
export const reservedMappingKeys: ReadonlySet<string> = new Set(['messageId', 'eventType', 'occurredAt', 'clientUserId', 'email', 'phone']);

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Ids arrive as numbers as often as strings (order 1042, user 77), and they mean the same thing. Only whole numbers
 * up to 2^53 count: past that JSON.parse has already rounded them, and two orders could share one messageId.
 */
export function identifierText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

// Below this an epoch number is seconds, at or above it milliseconds: 1e11 seconds is the year 5138,
// 1e11 milliseconds is March 1973, so neither reading of a real timestamp falls on the wrong side.
const epochMillisecondsThreshold = 1e11;
// toISOString() stops printing the plain four-digit form after 9999-12-31.
const latestInstantMs = Date.UTC(10000, 0, 1) - 1;

/** An ISO-8601 date-time with a zone, or epoch seconds or milliseconds; undefined when it is neither. */
export function parseInstant(value: unknown): Date | undefined {
  if (typeof value === 'string') {
    return instantSchema.safeParse(value).success ? new Date(value) : undefined;
  }
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    const ms = value < epochMillisecondsThreshold ? value * 1000 : value;
    return ms <= latestInstantMs ? new Date(Math.round(ms)) : undefined;
  }
  return undefined;
}

/** A plain assignment with key "__proto__" would replace the prototype instead of storing an attribute. */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Copies an object's own keys with setOwn, so "__proto__" parsed from JSON stays an ordinary key. */
export function assignOwn(target: JsonObject, source: unknown): void {
  if (!isJsonObject(source)) return;
  for (const [key, value] of Object.entries(source)) setOwn(target, key, value);
}

/**
 * The connection's own attribute mapping, applied last so it wins over what the provider's translation put there.
 * Paths that lead nowhere are skipped: a field an event lacks is not an error.
 */
export function applyAttributeMapping(
  attributes: JsonObject,
  source: unknown,
  mapping: Record<string, string>,
): void {
  for (const [key, path] of Object.entries(mapping)) {
    if (reservedMappingKeys.has(key)) continue;
    const value = readPath(source, path);
    if (value !== undefined) setOwn(attributes, key, value);
  }
}

/** Spreads only what is there: the envelope leaves optional members out rather than sending empty ones. */
export function nonEmpty<T extends object>(key: string, value: T): Record<string, T> {
  return Object.keys(value).length > 0 ? { [key]: value } : {};
}

export type Checked = { ok: true; value: string } | { ok: false; message: string };

/** An id or name bound for a length-limited envelope field; numbers count, because ids are often numbers. */
export function checkText(value: unknown, maxLength: number): Checked {
  const text = identifierText(value);
  if (text === undefined) {
    return { ok: false, message: 'must be a string or a whole number up to 2^53 (send larger ids as strings: JSON numbers lose their digits)' };
  }
  if (text.length === 0) return { ok: false, message: 'must not be empty' };
  if (text.length > maxLength) return { ok: false, message: `must be at most ${maxLength} characters` };
  return { ok: true, value: text };
}
