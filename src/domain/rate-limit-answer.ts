import { burstWindowSeconds, type RateDecision, type RateLimit } from '../persistence/rate-limiter.ts';
import { DomainError } from './errors.ts';

/**
 * What a rate-limited answer says of the caller's allowance: the IETF RateLimit headers (draft-ietf-httpapi-ratelimit-
 * headers, the three-header form). The management API sets them on every answer to a known caller, and the ingest
 * endpoint on its 429s (docs/api.md, "Rate limits").
 */
export function rateLimitHeaders(limit: RateLimit, decision: RateDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit.perSecond),
    'RateLimit-Remaining': String(Math.min(limit.perSecond, Math.max(0, decision.remaining))),
    'RateLimit-Reset': String(Math.max(0, decision.resetSeconds)),
  };
}

/** The allowance in words, for a refusal's message. */
export const allowanceOf = (limit: RateLimit) => `at most ${limit.perSecond} a second, and ${limit.burst} more per ${burstWindowSeconds} s`;

/** 429 `rate_limited`: `message`, the RateLimit headers, and Retry-After in whole seconds. */
export function rateLimited(message: string, limit: RateLimit, decision: Extract<RateDecision, { allowed: false }>): DomainError {
  return new DomainError('rate_limited', message, undefined, { ...rateLimitHeaders(limit, decision), 'Retry-After': String(decision.retryAfterSeconds) });
}
