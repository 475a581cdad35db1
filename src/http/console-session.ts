import type { IncomingHttpHeaders } from 'node:http';
import { DomainError } from '../domain/errors.ts';

// The console's cookie and its CSRF rule (docs/console.md, "Sign-in and CSRF"; docs/adr/0080). The cookie holds an
// opaque session token; a request that changes state and is carried by it must come from the console itself.

/** The cookie's name: over https with the `__Host-` prefix, which binds it to this host (Secure, Path=/, no Domain). */
export const consoleCookieName = (secure: boolean) => (secure ? '__Host-richpush_console' : 'richpush_console');

/** The header the console sends with every call: a cross-origin page cannot add it without a CORS preflight, which this API never grants. */
export const consoleHeader = 'x-console';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where the request reached the service, and how the world reaches it, as far as the cookie's flags are concerned. */
export interface RequestPlace {
  headers: IncomingHttpHeaders;
  /** protocol://Host of this request as the server saw it. */
  origin: string;
  /** PUBLIC_URL. */
  publicUrl: string;
}

/**
 * Served over https: PUBLIC_URL is https, or this connection is TLS, or a proxy in front says the client's was
 * (`X-Forwarded-Proto: https`). A spoofed header can only make the cookie stricter (Secure), never weaker.
 */
export function servedOverHttps({ headers, origin, publicUrl }: RequestPlace): boolean {
  const forwarded = String(headers['x-forwarded-proto'] ?? '').split(',')[0]?.trim().toLowerCase();
  return publicUrl.startsWith('https:') || origin.startsWith('https:') || forwarded === 'https';
}

/** The session token the request's cookie carries, if any. */
export function consoleCookieOf(place: RequestPlace): string | undefined {
  const wanted = consoleCookieName(servedOverHttps(place));
  for (const pair of String(place.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === wanted) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** `Set-Cookie` for a new session: httpOnly (no script reads it), SameSite=Strict, Secure over https, ending with it. */
export function consoleCookie(place: RequestPlace, token: string, expiresAt: Date, now = new Date()): string {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  return cookieLine(place, token, maxAge);
}

/** `Set-Cookie` that makes the browser forget the session. */
export const clearedConsoleCookie = (place: RequestPlace) => cookieLine(place, '', 0);

function cookieLine(place: RequestPlace, value: string, maxAgeSeconds: number): string {
  const secure = servedOverHttps(place);
  return [`${consoleCookieName(secure)}=${value}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
}

/** This service's own origins: PUBLIC_URL's, and the one this request was made to. */
function ownOrigins({ origin, publicUrl }: RequestPlace): string[] {
  return [new URL(publicUrl).origin, origin];
}

/**
 * The CSRF rule for a request the console cookie carries: a method that changes state (not GET, HEAD, OPTIONS) must
 * come from this service's own pages, which the browser vouches for with `Origin` (one of ours) or
 * `Sec-Fetch-Site: same-origin`, and must carry `X-Console: 1`. Otherwise 403 `csrf_refused`. SameSite=Strict alone
 * would let a page of another origin on the same site (a sibling subdomain, another port) post with the cookie.
 */
export function assertConsoleRequest(method: string, place: RequestPlace): void {
  if (safeMethods.has(method.toUpperCase())) return;
  const { headers } = place;
  const sameOrigin = headers['sec-fetch-site'] === 'same-origin' || (typeof headers.origin === 'string' && ownOrigins(place).includes(headers.origin));
  if (!sameOrigin) throw csrfRefused('it does not come from this service’s own pages (Origin, Sec-Fetch-Site)');
  if (headers[consoleHeader] !== '1') throw csrfRefused('it lacks the console’s header X-Console: 1');
}

const csrfRefused = (why: string) =>
  new DomainError('csrf_refused', `A request that changes state with the console's cookie is refused: ${why}. Scripts use Authorization: Bearer <apiKey>`);
