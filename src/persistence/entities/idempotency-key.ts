import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const idempotencyKeyStatuses = ['in_progress', 'completed'] as const;
export type IdempotencyKeyStatus = (typeof idempotencyKeyStatuses)[number];

/**
 * One `Idempotency-Key` a caller sent, within its scope (`account:<id>`, or `admin` on admin routes), for 24 h.
 * `id` names the logical request across its retries (a Temporal update id, a job id). While `in_progress`,
 * `leaseOwner` holds the running attempt and `lockedUntil` ends its lease; once `completed`, the answer is kept sealed
 * (it may show a secret once, such as an API key). Only src/persistence/idempotency-keys.ts reads and writes it.
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    id: p.uuid().primary(),
    scope: p.string().length(80),
    key: p.string().length(255),
    /** sha256 hex of method, path with query, and body bytes. */
    fingerprint: p.string().length(64),
    status: p.enum(idempotencyKeyStatuses),
    leaseOwner: p.uuid().nullable(),
    lockedUntil: p.datetime().nullable(),
    responseStatus: p.integer().nullable(),
    /** `{ headers, body }` as JSON (body: the exact JSON text answered), sealed with SECRETS_KEY. */
    responseSealed: p.text().nullable(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
  uniques: [{ properties: ['scope', 'key'] }],
  indexes: [{ properties: ['expiresAt'] }],
});

export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
