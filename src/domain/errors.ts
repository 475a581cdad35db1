import type { z } from 'zod';

/**
 * Business failures, each with a stable `code` that clients can branch on. The HTTP layer maps every one to the
 * same error body: `{ error: { code, message, requestId, details? } }`.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

const plainSegment = /^[A-Za-z0-9_$-]+$/;

/**
 * The `path` of a detail: the place (`body`, `query`, `params`) then each step, e.g. `body.about.0.title`. A key that is
 * not a plain name is quoted as JSON in brackets (`body.attributes["first name"]`, `body.about.0["x\u0000"]`), so the
 * path stays readable and unambiguous whatever the key holds.
 */
export function formatDetailPath(place: string, steps: ReadonlyArray<PropertyKey>): string {
  let path = place;
  for (const step of steps) {
    if (typeof step === 'number' || (typeof step === 'string' && plainSegment.test(step))) path += `.${step}`;
    else path += `[${JSON.stringify(String(step))}]`;
  }
  return path;
}

/**
 * A schema's issues as one detail per problem: zod reports a number past the safe-integer range twice on one value
 * (`int()`'s own bound and the schema's `max`, e.g. `playTime: 1e30`), so of two bounds of one kind on one value only
 * the tighter one is kept, which is the one the schema states.
 */
export function withoutLooserBounds<I extends z.core.$ZodIssue>(issues: readonly I[]): I[] {
  const bound = (issue: I) => (issue.code === 'too_big' ? Number(issue.maximum) : issue.code === 'too_small' ? -Number(issue.minimum) : undefined);
  const samePlace = (a: I, b: I) => a.code === b.code && a.path.length === b.path.length && a.path.every((step, index) => step === b.path[index]);
  return issues.filter((issue, index) => {
    const own = bound(issue);
    if (own === undefined) return true;
    return !issues.some((other, otherIndex) => {
      const theirs = otherIndex !== index && samePlace(issue, other) ? bound(other) : undefined;
      return theirs !== undefined && (theirs < own || (theirs === own && otherIndex < index));
    });
  });
}

export type ErrorCode =
  | 'validation_failed'
  | 'invalid_json'
  | 'invalid_click_time'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'unauthorized'
  | 'invalid_signature'
  | 'timestamp_out_of_window'
  | 'connection_paused'
  | 'csrf_refused'
  | 'rate_limited'
  | 'duplicate_message'
  | 'not_found'
  | 'link_expired'
  | 'method_not_allowed'
  | 'invalid_state'
  | 'invalid_url'
  | 'unknown_segment'
  | 'segment_required'
  | 'play_time_expired'
  | 'conflict'
  | 'abtest_not_valid'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  | 'service_unavailable'
  | 'too_large'
  | 'media_unavailable'
  | 'file_not_ready'
  | 'file_rejected'
  | 'file_in_use'
  | 'too_many_takes'
  | 'range_not_satisfiable'
  | 'internal';

const statusOf: Record<ErrorCode, number> = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_click_time: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  unauthorized: 401,
  invalid_signature: 401,
  timestamp_out_of_window: 401,
  connection_paused: 403,
  csrf_refused: 403,
  rate_limited: 429,
  duplicate_message: 409,
  not_found: 404,
  link_expired: 410,
  method_not_allowed: 405,
  invalid_state: 409,
  invalid_url: 422,
  unknown_segment: 422,
  segment_required: 422,
  play_time_expired: 422,
  conflict: 409,
  abtest_not_valid: 422,
  idempotency_key_reused: 422,
  idempotency_key_in_use: 409,
  service_unavailable: 503,
  too_large: 413,
  media_unavailable: 503,
  file_not_ready: 409,
  file_rejected: 422,
  file_in_use: 409,
  too_many_takes: 409,
  range_not_satisfiable: 416,
  internal: 500,
};

export class DomainError extends Error {
  override name = 'DomainError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /** Response headers the answer needs, such as Retry-After on a 429. */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], headers?: Record<string, string>) {
    super(message);
    this.code = code;
    this.status = statusOf[code];
    this.details = details;
    this.headers = headers;
  }
}

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
export const validationFailed = (details: ErrorDetail[]) =>
  new DomainError('validation_failed', 'The request is not valid', details);
