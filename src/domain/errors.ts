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

export type ErrorCode =
  | 'validation_failed'
  | 'invalid_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'unauthorized'
  | 'invalid_signature'
  | 'timestamp_out_of_window'
  | 'connection_paused'
  | 'rate_limited'
  | 'duplicate_message'
  | 'not_found'
  | 'method_not_allowed'
  | 'invalid_state'
  | 'invalid_url'
  | 'unknown_segment'
  | 'segment_required'
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
  | 'range_not_satisfiable'
  | 'internal';

const statusOf: Record<ErrorCode, number> = {
  validation_failed: 400,
  invalid_json: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  unauthorized: 401,
  invalid_signature: 401,
  timestamp_out_of_window: 401,
  connection_paused: 403,
  rate_limited: 429,
  duplicate_message: 409,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  invalid_url: 422,
  unknown_segment: 422,
  segment_required: 422,
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
