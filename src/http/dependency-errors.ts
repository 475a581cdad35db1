import { ConnectionException } from '@mikro-orm/core';
import { isStorageError } from '../storage/index.ts';

/** gRPC status codes meaning "the server could not be reached or did not answer in time". */
const unavailableGrpcCodes = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);
const unavailableSystemCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** Postgres SQLSTATEs for a lost or refused connection, or a server shutting down. */
const unavailablePostgresStates = new Set(['08000', '08001', '08003', '08006', '57P01', '57P02', '57P03']);

/**
 * True when a failure means Postgres, Temporal or the file storage is out of reach rather than that the request was wrong. Such
 * failures are answered 503 with Retry-After, so that a client retries instead of giving up.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    if (current instanceof ConnectionException || isStorageError(current, 'unavailable')) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'number' && unavailableGrpcCodes.has(code)) return true;
    if (typeof code === 'string' && (unavailableSystemCodes.has(code) || unavailablePostgresStates.has(code))) return true;
    if (current instanceof AggregateError && current.errors.some(isDependencyUnavailable)) return true;
    if (current instanceof Error && /Failed to connect before the deadline|connect ECONNREFUSED/.test(current.message)) return true;
  }
  return false;
}

export const dependencyRetryAfterSeconds = 5;
