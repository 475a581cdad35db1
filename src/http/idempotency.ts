import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from 'koa';
import { DomainError, validationFailed } from '../domain/errors.ts';
import { secretContexts } from '../domain/secrets/secret-contexts.ts';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
} from '../persistence/idempotency-keys.ts';
import type { Account } from '../persistence/entities/account.ts';
import { errorBody } from './error-body.ts';
import type { Idempotency, RouteResult, RouteSpec } from './route.ts';
import type { ApiServices } from './services.ts';

/** 1 to 255 visible ASCII characters (`!` to `~`). */
export const idempotencyKeyPattern = /^[!-~]{1,255}$/;
export const replayedHeader = 'Idempotent-Replayed';
/** Retry-After on 409 `idempotency_key_in_use`: the lease left, at most this, since most first calls end sooner. */
const maxRetryAfterSeconds = 5;

/**
 * Mutating calls of a known caller honour the header. Unauthenticated routes ignore it: there is no caller to scope
 * keys to (the ingest endpoint dedupes on the event's `messageId`). So do streamed uploads, whose fingerprint would
 * need the whole body in memory (docs/api.md, "Recording files").
 */
export const honoursIdempotencyKey = (route: Pick<RouteSpec, 'method' | 'auth' | 'streamBody'>) =>
  route.method !== 'get' && route.auth !== 'none' && route.streamBody === undefined;

/** The request's key: undefined when it sends none or the route ignores it; a malformed key is a 400. */
export function idempotencyKeyOf(route: RouteSpec, ctx: Context): string | undefined {
  if (!honoursIdempotencyKey(route)) return undefined;
  const value = ctx.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !idempotencyKeyPattern.test(value)) {
    throw validationFailed([{ path: 'headers.idempotency-key', message: 'must be 1 to 255 visible ASCII characters, sent once' }]);
  }
  return value;
}

export interface IdempotentRequest {
  key: string;
  route: RouteSpec;
  account: Account | undefined;
  method: string;
  /** Path with the query, as sent. */
  url: string;
  body: Buffer;
}

/**
 * Keys are per account; admin routes share one scope, as there is one admin (ADMIN_TOKEN). Nothing derived from the
 * token is stored: an unsalted hash of an operator-chosen token would let a copy of the table be used to guess it.
 */
function scopeOf(request: IdempotentRequest): string {
  return request.route.auth === 'admin' ? 'admin' : `account:${request.account!.id}`;
}

function fingerprintOf(request: IdempotentRequest): string {
  return createHash('sha256').update(`${request.method}\n${request.url}\n`).update(request.body).digest('hex');
}

/** 5xx answers are forgotten so a retry runs again, and so are 429s; every other answer is kept and replayed. */
const isKept = (status: number) => status < 500 && status !== 429;

/**
 * Runs the handler once per key: the first answer is stored and replayed to every later request with the same key
 * and fingerprint. See docs/api.md ("Idempotent requests").
 */
export async function runIdempotently(
  request: IdempotentRequest,
  deps: { em: EntityManager; services: ApiServices; requestId: string },
  handler: (idempotency: Idempotency) => Promise<RouteResult>,
): Promise<RouteResult> {
  const { em, services } = deps;
  const scope = scopeOf(request);
  // The stored answer opens only under this scope and key, so it cannot be replayed from another caller's row.
  const answerContext = secretContexts.idempotentAnswer(scope, request.key);
  const claim = await claimIdempotencyKey(em, scope, request.key, fingerprintOf(request));
  if (claim.outcome === 'reused') {
    throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with a different request in the last 24 hours; send a new key');
  }
  if (claim.outcome === 'in_use') {
    const retryAfter = Math.min(maxRetryAfterSeconds, Math.max(1, Math.ceil(claim.leaseLeftSeconds)));
    throw new DomainError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry after Retry-After', undefined, {
      'Retry-After': String(retryAfter),
    });
  }
  if (claim.outcome === 'replay') {
    const { headers, body } = JSON.parse(services.secrets.open(claim.sealed, answerContext)) as { headers: Record<string, string>; body: string | null };
    const type: Record<string, string> = body === null ? {} : { 'Content-Type': 'application/json; charset=utf-8' };
    return { status: claim.status, headers: { ...headers, ...type, [replayedHeader]: 'true' }, ...(body === null ? {} : { body }) };
  }

  const settle = async (answer: RouteResult | undefined) => {
    try {
      if (answer && isKept(answer.status)) {
        const body = answer.body === undefined ? null : JSON.stringify(answer.body);
        await storeIdempotentAnswer(em, claim, answer.status, services.secrets.seal(JSON.stringify({ headers: answer.headers ?? {}, body }), answerContext));
      } else {
        await releaseIdempotencyKey(em, claim);
      }
    } catch (error) {
      // The answer still goes out; the row stays in progress until its lease ends, then a retry runs again.
      services.logger.warn({ err: error, requestId: deps.requestId }, 'idempotency key not settled');
    }
  };
  let answer: RouteResult;
  try {
    answer = await handler({ key: request.key, operationId: claim.operationId });
  } catch (error) {
    const failure = error instanceof DomainError ? error : undefined;
    await settle(failure && { status: failure.status, headers: failure.headers, body: errorBody(failure.code, failure.message, deps.requestId, failure.details) });
    throw error;
  }
  await settle(answer);
  return answer;
}
