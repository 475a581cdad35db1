import { createHash, randomBytes } from 'node:crypto';

/** Opaque, prefixed ids such as `ep_…`, `evt_…`: 16 random bytes, base64url. The prefix tells a reader what it is. */
export const newId = (prefix: string) => `${prefix}${randomBytes(16).toString('base64url')}`;

/** The same id for the same parts, every time: lets a retried step find the row its earlier try wrote. */
export const derivedId = (prefix: string, ...parts: string[]) =>
  `${prefix}${createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 22)}`;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` has the form of a UUID: check it before a uuid column is compared with it, or Postgres fails. */
export const isUuid = (value: string) => uuidPattern.test(value);
