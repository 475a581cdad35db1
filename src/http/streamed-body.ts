import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { DomainError } from '../domain/errors.ts';
import type { RouteResult } from './route.ts';

/** The request's Content-Length, when it sent a valid one: a streamed body announced over its cap is refused unread. */
export function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  const value = headers['content-length'];
  const length = value === undefined ? NaN : Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/**
 * For a route that streams its body (`streamBody`): a refusal that comes before the body is all read (a wrong app, a
 * bad Content-Type, no ffmpeg, the cap) closes the connection after the answer. Otherwise Node would read and discard
 * the rest of the upload, all of it, to keep the connection open.
 */
export async function closingUnread(body: Readable, handle: () => Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await handle();
  } catch (error) {
    if (error instanceof DomainError && !body.readableEnded) {
      throw new DomainError(error.code, error.message, error.details, { ...error.headers, Connection: 'close' });
    }
    throw error;
  }
}
