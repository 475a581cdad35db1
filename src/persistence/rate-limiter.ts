import pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimit {
  perSecond: number;
  burst: number;
}

/**
 * What a key may still do, as this instance knows it: `remaining` is what the current second's allowance has left
 * (the burst allowance not counted), `resetSeconds` the whole seconds until that second ends. On a refusal
 * `remaining` is 0 and `resetSeconds` is `retryAfterSeconds`.
 */
export type RateDecision =
  | { allowed: true; remaining: number; resetSeconds: number }
  | { allowed: false; retryAfterSeconds: number; remaining: 0; resetSeconds: number };

export interface RateLimiter {
  /** Takes `points` (one per event or request) from the key's allowance. */
  consume(key: string, limit: RateLimit, points?: number): Promise<RateDecision>;
  /** Trips to Postgres this instance has made for reservations so far (each is one or two upserts). */
  reservations(): number;
  close: () => Promise<void>;
}

export interface RateLimiterOptions {
  /**
   * Names this limiter's counters in the shared `rate_limits` table (`<prefix>:<perSecond>:<key>` and
   * `<prefix>-burst:<burst>:<key>`), so that limiters of different purposes never share a counter: `ingest` for
   * connections, `api` for accounts and the admin token.
   */
  keyPrefix: string;
}

/** Requests above the steady rate draw on the burst allowance, which refills over this window. */
export const burstWindowSeconds = 10;
/** At most this share of a second's allowance is reserved by one instance at once (docs/adr/0033). */
export const reservationShare = 0.1;
/** A reservation covers about this much of the instance's recent demand for the key. */
const reservationHorizonMs = 200;
/** The demand estimate is refreshed no more often than this (shorter intervals are too noisy). */
const rateSampleMs = 100;
/** Keys whose state is dropped once they are idle and the map holds more than this. */
const maxKeys = 10_000;

/** What one trip to Postgres got: points now held locally until `expiresAt`, or a refusal. */
interface Reservation {
  /** Both counters refused what the request needed: every request waiting on this answer is refused too. */
  exhausted: boolean;
  retryAfterMs: number;
}

/** The points one instance holds for one key (and limit), handed out without a round trip. */
interface Budget {
  points: number;
  /** What the steady counter had left for this second after the last trip (other instances may have taken some since). */
  steadyLeft: number;
  /** End of the steady window the points were counted in (this process's clock, as the counters' expiry is). */
  expiresAt: number;
  /** The steady counter had no more points for this second: no block is fetched ahead until it ends. */
  steadyDryUntil: number;
  inflight: Promise<Reservation> | undefined;
  /** Points the requests waiting on `inflight` need: the next trip asks for them too, so that one trip serves them all. */
  waiting: number;
  /** Points asked for since `rateSince`, and the demand estimate in points per second. */
  demand: number;
  rateSince: number;
  rate: number;
}

/**
 * rate-limiter-flexible names its statements, which Postgres then keeps prepared on the connection; behind PgBouncer in
 * transaction mode the next query may run on another server connection, which has no such statement. Sent unnamed,
 * each query is parsed where it runs (a small upsert: the parse costs little).
 */
function unnamedStatements(pool: pg.Pool) {
  return { query: (query: pg.QueryConfig) => pool.query({ text: query.text, values: query.values }) };
}

/**
 * A rate limiter shared by every API instance: rate-limiter-flexible keeps its counters in the `rate_limits` table
 * (created by the migrations). A key (an ingest connection, an account of the management API) may take `perSecond`
 * points each second, plus `burst` more per 10-second window. Each distinct limit gets its own pair of counters.
 *
 * Points are reserved in blocks (docs/adr/0033): one `consume(key, n)` on the steady counter takes up to n points at
 * once, sized from this instance's recent demand for the key and capped at a tenth of `perSecond`; they are handed
 * out from memory until they run out or the second they were counted in ends, and the next block is fetched when
 * half is used (not while the steady counter has run dry for the second). Only points requests actually need (the
 * one that makes the trip and those waiting for it) are ever taken from the burst counter. A limit under 10 a second
 * has a cap of 0: every request consults Postgres, as before. Refusals are never remembered: each is decided in
 * Postgres, for every request waiting on the trip at once.
 *
 * What a decision says is left (`remaining`) is the steady counter's remainder at this instance's last trip plus the
 * points it holds beyond what waiting requests will take: exact with one instance, an estimate with several
 * (docs/adr/0049).
 */
export function createRateLimiter(databaseUrl: string, { keyPrefix }: RateLimiterOptions): RateLimiter {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', () => {
    // An idle client lost its connection; the next query reconnects, and a failing one surfaces to the caller.
  });
  const store = { storeClient: unnamedStatements(pool), storeType: 'pool', tableName: 'rate_limits', tableCreated: true } as const;
  const counters = new Map<string, { steady: RateLimiterPostgres; burst: RateLimiterPostgres }>();
  const budgets = new Map<string, Budget>();
  let reservations = 0;

  const countersFor = ({ perSecond, burst }: RateLimit) => {
    const id = `${perSecond}/${burst}`;
    let pair = counters.get(id);
    if (!pair) {
      pair = {
        steady: new RateLimiterPostgres({ ...store, keyPrefix: `${keyPrefix}:${perSecond}`, points: perSecond, duration: 1 }),
        burst: new RateLimiterPostgres({ ...store, keyPrefix: `${keyPrefix}-burst:${burst}`, points: burst, duration: burstWindowSeconds }),
      };
      counters.set(id, pair);
    }
    return pair;
  };

  const budgetFor = (key: string, limit: RateLimit): Budget => {
    const id = `${limit.perSecond}/${limit.burst}:${key}`;
    let budget = budgets.get(id);
    if (!budget) {
      if (budgets.size >= maxKeys) prune(budgets);
      budget = { points: 0, steadyLeft: 0, expiresAt: 0, steadyDryUntil: 0, inflight: undefined, waiting: 0, demand: 0, rateSince: Date.now(), rate: 0 };
      budgets.set(id, budget);
    }
    return budget;
  };

  /** One block: `needed` points the caller must have (steady, then burst for the shortfall) plus `extra` from steady only. */
  const reserve = (budget: Budget, key: string, limit: RateLimit, needed: number, extra: number): Promise<Reservation> => {
    const run = async (): Promise<Reservation> => {
      reservations++;
      const { steady, burst } = countersFor(limit);
      const fromSteady = await take(steady, key, needed + extra, limit.perSecond);
      let granted = fromSteady.granted;
      let retryAfterMs = fromSteady.msBeforeNext;
      if (granted < needed) {
        const fromBurst = await take(burst, key, needed - granted, limit.burst);
        granted += fromBurst.granted;
        retryAfterMs = Math.min(retryAfterMs, fromBurst.msBeforeNext);
      }
      const now = Date.now();
      // Points left from a second that has ended are void; the new ones count until the end of their own second.
      if (budget.expiresAt <= now) budget.points = 0;
      budget.points += granted;
      budget.steadyLeft = fromSteady.left;
      budget.expiresAt = now + fromSteady.msBeforeNext;
      if (fromSteady.granted < needed + extra) budget.steadyDryUntil = budget.expiresAt;
      return { exhausted: granted < needed, retryAfterMs };
    };
    const inflight = run().finally(() => {
      budget.inflight = undefined;
    });
    budget.inflight = inflight;
    return inflight;
  };

  /** The block to aim for: the demand of the next horizon, at most the cap (0 below 10 a second: no blocks). */
  const target = (budget: Budget, limit: RateLimit, now: number): number => {
    const elapsed = now - budget.rateSince;
    // Demand so far in this sample, as a rate: lets a key that has just become busy grow its blocks at once.
    const current = (budget.demand * 1000) / Math.max(elapsed, rateSampleMs);
    const estimate = elapsed >= 1000 ? current : Math.max(budget.rate, current);
    if (elapsed >= rateSampleMs) {
      // A long idle gap counts fully; otherwise the estimate moves halfway towards the new sample.
      budget.rate = elapsed >= 1000 ? current : (budget.rate + current) / 2;
      budget.demand = 0;
      budget.rateSince = now;
    }
    const cap = Math.floor(limit.perSecond * reservationShare);
    return Math.min(cap, Math.ceil((estimate * reservationHorizonMs) / 1000));
  };

  return {
    async consume(key, limit, points = 1) {
      const budget = budgetFor(key, limit);
      budget.demand += points;
      for (;;) {
        const now = Date.now();
        if (budget.expiresAt <= now) budget.points = 0;
        if (budget.points >= points) {
          budget.points -= points;
          // Fetch the next block before this one runs out, so requests rarely wait for one.
          const aim = target(budget, limit, now);
          if (!budget.inflight && aim > 0 && budget.points < aim / 2 && now >= budget.steadyDryUntil) {
            reserve(budget, key, limit, 0, aim).catch(() => {
              // A failed refill is retried by the next request that finds too few points, and surfaces there.
            });
          }
          // Left: what the counter had, and what this instance holds beyond what the waiting requests will take.
          const remaining = budget.steadyLeft + Math.max(0, budget.points - budget.waiting);
          return { allowed: true, remaining, resetSeconds: Math.ceil((budget.expiresAt - now) / 1000) };
        }
        if (budget.inflight) {
          // One trip at a time per key: wait for the one under way, then look again.
          budget.waiting += points;
          // Counted until this request runs again (never throws: a failed trip is undefined here), so that a request
          // woken before it makes the next trip for both.
          const answer = await budget.inflight.catch(() => undefined);
          budget.waiting -= points;
          if (answer?.exhausted && budget.points < points) return refusal(answer.retryAfterMs);
          continue;
        }
        // What this request lacks, and what the requests still waiting on the last trip need (they found too few
        // points as well): a flood of one key costs one trip per batch of its requests, not one per request.
        const needed = points + budget.waiting - budget.points;
        const answer = await reserve(budget, key, limit, needed, Math.max(0, target(budget, limit, now) - needed));
        if (answer.exhausted && budget.points < points) return refusal(answer.retryAfterMs);
      }
    },
    reservations: () => reservations,
    close: () => pool.end(),
  };
}

const refusal = (retryAfterMs: number): RateDecision => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return { allowed: false, retryAfterSeconds: seconds, remaining: 0, resetSeconds: seconds };
};

/**
 * Consumes `points` on one counter and says how many of them were within its limit: rate-limiter-flexible counts
 * the whole request either way and refuses it whole when it goes over, but the points below the limit were counted
 * by this request alone, so they are this request's to use. `left` is what the counter has left after it.
 */
async function take(
  counter: RateLimiterPostgres,
  key: string,
  points: number,
  limit: number,
): Promise<{ granted: number; left: number; msBeforeNext: number }> {
  let res: RateLimiterRes;
  try {
    res = await counter.consume(key, points);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    res = rejection;
  }
  const over = Math.max(0, res.consumedPoints - limit);
  return { granted: Math.max(0, points - over), left: Math.max(0, limit - res.consumedPoints), msBeforeNext: res.msBeforeNext };
}

function prune(budgets: Map<string, Budget>): void {
  const now = Date.now();
  for (const [id, budget] of budgets) if (!budget.inflight && budget.expiresAt <= now) budgets.delete(id);
  // Still full of live keys: forget the oldest (their points are lost, which only ever refuses more).
  for (const id of budgets.keys()) {
    if (budgets.size < maxKeys) break;
    budgets.delete(id);
  }
}
