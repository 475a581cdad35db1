/**
 * What one HTTP answer from a webhook endpoint means for the delivery. Pure, so the rules are tested as a table.
 * - any 2xx: delivered
 * - 410 Gone: the receiver asks us to stop; the endpoint is disabled
 * - 429 and 503: retry, after Retry-After when it is given
 * - 408 and other 5xx: retry on the normal schedule
 * - 3xx (never followed) and other 4xx: the receiver rejected it; retrying would not help
 */
export type ResponseVerdict =
  | { kind: 'delivered' }
  | { kind: 'retry'; afterMs?: number }
  | { kind: 'gone' }
  | { kind: 'rejected' };

const maxRetryAfterMs = 10 * 60 * 60 * 1000;

/** Retry-After is either delay-seconds or an HTTP date; anything else is ignored. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  let delayMs: number | undefined;
  if (/^\d+$/.test(trimmed)) delayMs = Number(trimmed) * 1000;
  // An HTTP date names its month; without that check Date.parse would read "1.5" or "-3" as a date.
  else if (/[A-Za-z]/.test(trimmed)) {
    const date = Date.parse(trimmed);
    if (!Number.isNaN(date)) delayMs = Math.max(0, date - now);
  }
  return delayMs === undefined ? undefined : Math.min(delayMs, maxRetryAfterMs);
}

export function classifyResponse(status: number, retryAfter: string | undefined, now = Date.now()): ResponseVerdict {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'gone' };
  if (status === 429 || status === 503) {
    const afterMs = parseRetryAfter(retryAfter, now);
    return afterMs === undefined ? { kind: 'retry' } : { kind: 'retry', afterMs };
  }
  if (status === 408 || status >= 500) return { kind: 'retry' };
  return { kind: 'rejected' };
}
