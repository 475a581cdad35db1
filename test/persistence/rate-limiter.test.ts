import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRateLimiter, reservationShare, type RateDecision, type RateLimit, type RateLimiter } from '../../src/persistence/rate-limiter.ts';

let instances: RateLimiter[];

beforeAll(() => {
  // Two API instances' limiters: separate pools and separate reserved blocks, one rate_limits table.
  instances = [createRateLimiter(inject('databaseUrl'), { keyPrefix: 'test' }), createRateLimiter(inject('databaseUrl'), { keyPrefix: 'test' })];
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.close()));
});

const allowedOf = async (instance: RateLimiter, key: string, limit: RateLimit, posts: number) => {
  const decisions = await Promise.all(Array.from({ length: posts }, () => instance.consume(key, limit)));
  return decisions.filter((decision) => decision.allowed).length;
};

describe('rate limiter: points reserved in blocks', () => {
  it('hands most points out from memory: a busy key costs a few trips to Postgres, not one per post', async () => {
    const [instance] = instances;
    const key = `conn-${randomUUID()}`;
    const before = instance!.reservations();
    for (let post = 0; post < 1000; post++) expect(await instance!.consume(key, { perSecond: 100_000, burst: 100 })).toMatchObject({ allowed: true });
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
    expect(await instance!.consume(key, limit, 4)).toEqual({ allowed: true, remaining: 0, resetSeconds: 1 });
    // Two more: only one is left, so the batch is refused until the second ends ...
    expect(await instance!.consume(key, limit, 2)).toEqual({ allowed: false, retryAfterSeconds: 1, remaining: 0, resetSeconds: 1 });
    // ... and the point it was counted for is still this instance's to hand out: five in all, the allowance.
    expect(await instance!.consume(key, limit, 1)).toMatchObject({ allowed: true });
    expect(await instance!.consume(key, limit, 1)).toEqual({ allowed: false, retryAfterSeconds: 1, remaining: 0, resetSeconds: 1 });
  });

  it('says what the second has left: exactly, with one instance and no blocks', async () => {
    const [instance] = instances;
    const key = `conn-${randomUUID()}`;
    const limit = { perSecond: 5, burst: 2 };
    // A fixed second may end between two calls; a run that crossed one is tried again on a fresh key.
    for (let attempt = 1; ; attempt++) {
      const runKey = `${key}-${attempt}`;
      const started = Date.now();
      const decisions = [];
      for (let call = 0; call < 8; call++) decisions.push(await instance!.consume(runKey, limit));
      if (Date.now() - started > 500 && attempt < 5) continue;
      expect(decisions.map((decision) => decision.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true, true, true, true, false]);
      for (const decision of decisions) expect(decision.resetSeconds).toBe(1);
      break;
    }
  });

  it('decides a flood of one key in a few trips, and counts down what the second has left', async () => {
    const [instance] = instances;
    const limit = { perSecond: 100, burst: 200 };
    // The count-down holds within one fixed second; a run that a slow machine stretched past it is tried again.
    for (let attempt = 1; ; attempt++) {
      const key = `conn-${randomUUID()}`;
      const before = instance!.reservations();
      const started = Date.now();
      const inOrder: RateDecision[] = [];
      await Promise.all(Array.from({ length: 500 }, async () => inOrder.push(await instance!.consume(key, limit))));
      if (Date.now() - started > 500 && attempt < 5) continue;
      const allowed = inOrder.filter((decision) => decision.allowed);
      expect(allowed).toHaveLength(limit.perSecond + limit.burst);
      // Requests waiting on a trip are served by the next one together: not one trip each.
      expect(instance!.reservations() - before).toBeLessThan(50);
      const remaining = allowed.map((decision) => decision.remaining);
      expect(remaining[0]).toBeLessThan(limit.perSecond);
      expect(remaining.at(-1)).toBe(0);
      expect(remaining.every((left, index) => index === 0 || left <= remaining[index - 1]!), remaining.join(',')).toBe(true);
      break;
    }
  });

  it('counts each prefix apart: limiters of different purposes never share a counter', async () => {
    const other = createRateLimiter(inject('databaseUrl'), { keyPrefix: 'test-other' });
    try {
      const key = `conn-${randomUUID()}`;
      const limit = { perSecond: 1, burst: 1 };
      expect((await instances[0]!.consume(key, limit, 2)).allowed).toBe(true);
      expect((await instances[0]!.consume(key, limit)).allowed).toBe(false);
      expect((await other.consume(key, limit, 2)).allowed).toBe(true);
    } finally {
      await other.close();
    }
  });
});
