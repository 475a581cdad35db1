import { createHmac, hkdfSync } from 'node:crypto';
import type { Context } from 'koa';
import { allowanceOf, rateLimited, rateLimitHeaders } from '../domain/rate-limit-answer.ts';
import type { Account } from '../persistence/entities/account.ts';
import type { RateDecision, RateLimit } from '../persistence/rate-limiter.ts';
import { sha256Hex } from '../security/tokens.ts';
import type { AuthKind } from './route.ts';
import type { ApiServices } from './services.ts';

// The management API's rate limit (docs/api.md, "Rate limits"; docs/adr/0049): per account on every route that
// takes an API key, per admin token on the admin routes. Routes without credentials (health, the OpenAPI document)
// are not limited, and neither is the ingest endpoint by this limit: it has its own, per connection. The artist's
// link routes, which take a token in their path instead of credentials, have theirs (`applyLinkRateLimit`).

/** Whether this limit applies to a route: to every route with a caller. */
export const isRateLimited = (auth: AuthKind): boolean => auth !== 'none';

/**
 * The admin routes' key: an HMAC of ADMIN_TOKEN under a key derived from SECRETS_KEY. Instances with the same token
 * share a counter; the `rate_limits` table holds nothing from which the token could be guessed offline, as a plain
 * hash of an operator-chosen token would (docs/adr/0043).
 */
export function adminRateLimitKey(adminToken: string, secretsKey: string): string {
  const hmacKey = Buffer.from(hkdfSync('sha256', Buffer.from(secretsKey, 'base64'), Buffer.alloc(0), 'richpush admin token rate limit', 32));
  return `admin:${createHmac('sha256', hmacKey).update(adminToken).digest('base64url')}`;
}

/**
 * Counts one request of an authenticated caller, and sets the IETF RateLimit headers (draft-ietf-httpapi-ratelimit-
 * headers, the three-header form), which every later answer keeps (errors too: the error handler answers on the same
 * response). Over the limit: 429 `rate_limited` with Retry-After. Runs after authentication (the key is the caller) and
 * before the request's input is read.
 */
export async function applyRateLimit(auth: AuthKind, account: Account | undefined, ctx: Context, services: ApiServices): Promise<void> {
  if (!isRateLimited(auth)) return;
  const { limiter, limit, adminKey } = services.apiRateLimit;
  const key = auth === 'admin' ? adminKey : `account:${account!.id}`;
  const decision = await limiter.consume(key, limit);
  ctx.set(rateLimitHeaders(limit, decision));
  if (decision.allowed) return;
  const caller = auth === 'admin' ? 'with the admin token' : 'for this account';
  throw rateLimited(`Too many requests ${caller} (${allowanceOf(limit)}); retry after ${decision.retryAfterSeconds} s`, limit, decision);
}

/**
 * An artist's link's routes (a token in the path, no credentials): every request counts against its client's address
 * and against its token (by the token's hash, never the token), so that neither trying tokens from one address nor
 * pressing one link from many goes far. The address is the connection's (the API does not trust X-Forwarded-For):
 * behind a proxy every artist shares the proxy's, so that limit is set well above what one person sends.
 */
export const linkRateLimits = {
  perAddress: { perSecond: 20, burst: 200 },
  perToken: { perSecond: 5, burst: 50 },
} as const satisfies Record<string, RateLimit>;

/** Counts one request of a link route, by address, then by token; the headers are those of the limit nearer its end. */
export async function applyLinkRateLimit(token: string, ctx: Context, services: ApiServices): Promise<void> {
  const { limiter } = services.apiRateLimit;
  const counts = [
    { caller: 'from this address', limit: linkRateLimits.perAddress, key: `link-address:${ctx.ip}` },
    { caller: 'for this link', limit: linkRateLimits.perToken, key: `link-token:${sha256Hex(token)}` },
  ];
  let nearest: { limit: RateLimit; decision: RateDecision } | undefined;
  for (const { caller, limit, key } of counts) {
    const decision = await limiter.consume(key, limit);
    if (!nearest || decision.remaining / limit.perSecond < nearest.decision.remaining / nearest.limit.perSecond) nearest = { limit, decision };
    if (!decision.allowed) {
      throw rateLimited(`Too many requests ${caller} (${allowanceOf(limit)}); retry after ${decision.retryAfterSeconds} s`, limit, decision);
    }
  }
  ctx.set(rateLimitHeaders(nearest!.limit, nearest!.decision));
}

