import { createHmac, hkdfSync } from 'node:crypto';
import type { Context } from 'koa';
import { allowanceOf, rateLimited, rateLimitHeaders } from '../domain/rate-limit-answer.ts';
import type { Account } from '../persistence/entities/account.ts';
import type { AuthKind } from './route.ts';
import type { ApiServices } from './services.ts';

// The management API's rate limit (docs/api.md, "Rate limits"; docs/adr/0049): per account on every route that
// takes an API key, per admin token on the admin routes. Routes without credentials (health, the OpenAPI document)
// are not limited, and neither is the ingest endpoint by this limit: it has its own, per connection.

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
