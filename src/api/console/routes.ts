import { authenticateConsoleSession } from '../../domain/console-sessions/authenticate-console-session.ts';
import { DomainError } from '../../domain/errors.ts';
import { closeConsoleSession } from '../../domain/console-sessions/close-console-session.ts';
import { openConsoleSession } from '../../domain/console-sessions/open-console-session.ts';
import { assertConsoleRequest, clearedConsoleCookie, consoleCookie, consoleCookieOf, type RequestPlace } from '../../http/console-session.ts';
import { defineRoute, type RequestContext } from '../../http/route.ts';
import { consoleSessionSchema, consoleSessionStateSchema, openConsoleSessionBody } from './schemas.ts';

const tag = 'Console';

/** A session's answers are the caller's alone. */
const noStore = { 'Cache-Control': 'no-store' };

const placeOf = ({ request, services }: RequestContext): RequestPlace => ({ ...request, publicUrl: services.publicUrl });

/** An ended or unknown session reads as signed out; any other failure (the database) stays a failure. */
const signedOut = (error: unknown): undefined => {
  if (error instanceof DomainError && error.code === 'unauthorized') return undefined;
  throw error;
};

const csrfRefused = { description: 'Not from this service’s own pages, or without `X-Console: 1` (`csrf_refused`)' };

/**
 * The console's sign-in (docs/console.md, "Sign-in and CSRF"): an API key in, an httpOnly session cookie out. Every
 * other console call is a public API route, which takes that cookie as it takes a bearer key (src/http/auth.ts).
 */
export const consoleRoutes = [
  defineRoute({
    method: 'post',
    path: '/console/session',
    operationId: 'openConsoleSession',
    summary: 'Sign in to the console with an API key: sets the session cookie (httpOnly, SameSite=Strict, 12 h)',
    tag,
    auth: 'none',
    body: openConsoleSessionBody,
    bodyLimit: 4096,
    responses: {
      201: { description: 'Signed in; `Set-Cookie` carries the session, which the browser sends and no script can read', schema: consoleSessionSchema },
      401: { description: 'The key opens no account (`unauthorized`)' },
      403: csrfRefused,
    },
    handler: async ({ body }, ctx) => {
      // As any cookie-carried change: a page of another origin must not sign a browser in to an account of its choosing.
      assertConsoleRequest('POST', placeOf(ctx));
      const session = await openConsoleSession(ctx.em, body.apiKey);
      return {
        status: 201,
        headers: { ...noStore, 'Set-Cookie': consoleCookie(placeOf(ctx), session.token, session.expiresAt) },
        body: { accountId: session.accountId, expiresAt: session.expiresAt.toISOString(), temporalUi: ctx.services.temporalUi },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/console/session',
    operationId: 'getConsoleSession',
    summary: 'Whether the console’s cookie holds a live session, and whose',
    tag,
    auth: 'none',
    responses: { 200: { description: 'The session, or `signedIn: false` (no cookie, or its session has ended)', schema: consoleSessionStateSchema } },
    handler: async (_input, ctx) => {
      // 200 either way: the page cannot see its httpOnly cookie, so asking is how it learns to show the sign-in form.
      const token = consoleCookieOf(placeOf(ctx));
      const signIn = token === undefined ? undefined : await authenticateConsoleSession(ctx.em, token).catch(signedOut);
      return {
        status: 200,
        headers: noStore,
        body: signIn ? { signedIn: true, accountId: signIn.account.id, expiresAt: signIn.expiresAt.toISOString(), temporalUi: ctx.services.temporalUi } : { signedIn: false },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/console/logout',
    operationId: 'closeConsoleSession',
    summary: 'Sign out of the console: the session ends, and its cookie answers 401 from now on',
    tag,
    auth: 'none',
    responses: { 204: { description: 'Signed out, the cookie cleared; without a cookie, nothing happens' }, 403: csrfRefused },
    handler: async (_input, ctx) => {
      const place = placeOf(ctx);
      const token = consoleCookieOf(place);
      // Without a cookie there is nothing to end, and nothing to clear: a page of another site, whose post carries no
      // SameSite=Strict cookie, must not be able to make the browser drop the session either.
      if (token === undefined) return { status: 204, headers: noStore };
      assertConsoleRequest('POST', place);
      await closeConsoleSession(ctx.em, token);
      return { status: 204, headers: { ...noStore, 'Set-Cookie': clearedConsoleCookie(place) } };
    },
  }),
];
