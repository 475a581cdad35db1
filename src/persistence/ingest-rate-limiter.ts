import pg from 'pg';
import { BurstyRateLimiter, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface IngestRateLimiter {
  /** Takes `points` (one per event) from the key's allowance. */
  consume(key: string, limit: RateLimit, points?: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/** Requests above the steady rate draw on the burst allowance, which refills over this window. */
const burstWindowSeconds = 10;

/**
 * A rate limiter shared by every API instance: rate-limiter-flexible keeps its counters in the `rate_limits` table
 * (created by the migrations). A connection may post `perSecond` events each second, plus `burst` more per
 * 10-second window. Each distinct limit gets its own pair of counters.
 */
export function createIngestRateLimiter(databaseUrl: string): IngestRateLimiter {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', () => {
    // An idle client lost its connection; the next query reconnects, and a failing one surfaces to the caller.
  });
  const limiters = new Map<string, BurstyRateLimiter>();
  const store = { storeClient: pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true } as const;

  const limiterFor = ({ perSecond, burst }: RateLimit) => {
    const id = `${perSecond}/${burst}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = new BurstyRateLimiter(
        new RateLimiterPostgres({ ...store, keyPrefix: `ingest:${perSecond}`, points: perSecond, duration: 1 }),
        new RateLimiterPostgres({ ...store, keyPrefix: `ingest-burst:${burst}`, points: burst, duration: burstWindowSeconds }),
      );
      limiters.set(id, limiter);
    }
    return limiter;
  };

  return {
    async consume(key, limit, points = 1) {
      const limiter = limiterFor(limit);
      try {
        // Point by point: the bursty pair can only spill a single point from the steady rate into the burst.
        for (let taken = 0; taken < points; taken++) await limiter.consume(key, 1);
        return { allowed: true };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        }
        throw rejection;
      }
    },
    close: () => pool.end(),
  };
}
