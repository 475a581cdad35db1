import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * The table rate-limiter-flexible keeps its counters in, shared by every API instance. Declared here so that the
 * migration creates it and schema diffs leave it alone; only the limiter reads and writes it.
 */
export const RateLimitBucket = defineEntity({
  name: 'RateLimitBucket',
  tableName: 'rate_limits',
  properties: {
    key: p.string().length(255).primary(),
    points: p.integer().default(0),
    expire: p.bigint('number').nullable(),
  },
});

export type RateLimitBucket = InferEntity<typeof RateLimitBucket>;
