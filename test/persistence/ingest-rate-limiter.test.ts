import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createIngestRateLimiter, reservationShare, type IngestRateLimiter, type RateLimit } from '../../src/persistence/ingest-rate-limiter.ts';

let instances: IngestRateLimiter[];

beforeAll(() => {
  // Two API instances' limiters: separate pools and separate reserved blocks, one rate_limits table.
  instances = [createIngestRateLimiter(inject('databaseUrl')), createIngestRateLimiter(inject('databaseUrl'))];
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.close()));
});

const allowedOf = async (instance: IngestRateLimiter, key: string, limit: RateLimit, posts: number) => {
  const decisions = await Promise.all(Array.from({ length: posts }, () => instance.consume(key, limit)));
  return decisions.filter((decision) => decision.allowed).length;
};

describe('ingest rate limiter: points reserved in blocks', () => {
  it('hands most points out from memory: a busy key costs a few trips to Postgres, not one per post', async () => {
    const [instance] = instances;
    const key = `conn-${randomUUID()}`;
    const before = instance!.reservations();
    for (let post = 0; post < 1000; post++) expect(await instance!.consume(key, { perSecond: 100_000, burst: 100 })).toEqual({ allowed: true });
    const trips = instance!.reservations() - before;
    expect(trips).toBeGreaterThan(0);
    expect(trips).toBeLessThan(100);
  });

  it('below 10 a second reserves nothing ahead: every post is decided in Postgres', async () => {
    const [instance] = instances;
    const key = `conn-${randomUUID()}`;
    const before = instance!.reservations();
    const decisions = [];
    for (let post = 0; post < 20; post++) decisions.push(await instance!.consume(key, { perSecond: 5, burst: 1 }));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(6);
    expect(instance!.reservations() - before).toBe(20);
  });

  it('two instances together never hand out more than the shared allowance, and leave at most their blocks unused', { timeout: 30_000 }, async () => {
    const limit = { perSecond: 200, burst: 20 };
    const cap = Math.floor(limit.perSecond * reservationShare);
    // Both instances post far more than the allowance at once. The bound holds within one fixed second, so a run
    // that a slow machine stretched past it is tried again on a fresh key.
    for (let attempt = 1; ; attempt++) {
      const key = `conn-${randomUUID()}`;
      const started = Date.now();
      const allowed = await Promise.all(instances.map((instance) => allowedOf(instance, key, limit, 300)));
      if (Date.now() - started > 900 && attempt < 5) continue;
      const total = allowed[0]! + allowed[1]!;
      expect(total, allowed.join('+')).toBeLessThanOrEqual(limit.perSecond + limit.burst);
      // Each instance can end the second holding at most one and a half blocks it did not use.
      expect(total, allowed.join('+')).toBeGreaterThanOrEqual(limit.perSecond + limit.burst - 2 * 1.5 * cap);
      break;
    }
  });

  it('takes a batch from the second’s allowance, then the burst; keeps what a refused batch got for smaller posts', async () => {
    const [instance] = instances;
    const key = `conn-${randomUUID()}`;
    const limit = { perSecond: 3, burst: 2 };
    // Four points: the second's three and one of the burst.
    expect(await instance!.consume(key, limit, 4)).toEqual({ allowed: true });
    // Two more: only one is left, so the batch is refused until the second ends ...
    expect(await instance!.consume(key, limit, 2)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // ... and the point it was counted for is still this instance's to hand out: five in all, the allowance.
    expect(await instance!.consume(key, limit, 1)).toEqual({ allowed: true });
    expect(await instance!.consume(key, limit, 1)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });
});
