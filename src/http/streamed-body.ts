import { IncomingMessage, type IncomingHttpHeaders } from 'node:http';
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
 * bad Content-Type, no ffmpeg, the cap) closes the connection after the answer (`closeInStages`). Otherwise Node would
 * read and discard the rest of the upload, all of it, to keep the connection open.
 */
export async function closingUnread(body: Readable, handle: () => Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await handle();
  } catch (error) {
    if (error instanceof DomainError && !body.readableEnded) {
      if (body instanceof IncomingMessage) closeInStages(body);
      throw new DomainError(error.code, error.message, error.details, { ...error.headers, Connection: 'close' });
    }
    throw error;
  }
}

/** How long a connection refused mid-upload still reads, and drops, what its client goes on sending. */
export const refusedUploadLingerMs = 5_000;

/**
 * Closes the connection of an answer that leaves the request's body unread in stages (RFC 9112, section 9.6): the
 * answer and a FIN, then what the client still sends is read and dropped until it closes its side, or for
 * `refusedUploadLingerMs` at most. Node closes at once (`destroySoon` once the answer is written): with the upload
 * unread in its buffer the kernel resets the connection, and a client still sending may meet EPIPE before it has read
 * the answer.
 */
function closeInStages(request: IncomingMessage): void {
  const { socket } = request;
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const deadline = setTimeout(() => socket.destroy(), refusedUploadLingerMs);
    socket.once('close', () => clearTimeout(deadline));
    socket.once('end', () => socket.destroy());
    // The rest of the body flows to nobody.
    request.unpipe();
    request.removeAllListeners('data');
    request.resume();
  };
}
