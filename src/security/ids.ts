import { createHash, randomBytes } from 'node:crypto';

/** Opaque, prefixed ids such as `ep_…`, `evt_…`: 16 random bytes, base64url. The prefix tells a reader what it is. */
export const newId = (prefix: string) => `${prefix}${randomBytes(16).toString('base64url')}`;

/** The same id for the same parts, every time: lets a retried step find the row its earlier try wrote. */
export const derivedId = (prefix: string, ...parts: string[]) =>
  `${prefix}${createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22)}`;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` has the form of a UUID: check it before a uuid column is compared with it, or Postgres fails. */
export const isUuid = (value: string) => uuidPattern.test(value);

/**
 * A UUID derived from `parts` (SHA-256, laid out as an RFC 9562 version 8 UUID): the same parts give the same id, so
 * a push's send id is known before its row is written, and a row written after a crash carries the id the push went
 * out with.
 */
export function derivedUuid(...parts: string[]): string {
  const bytes = createHash('sha256').update(parts.join('\u0000')).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
