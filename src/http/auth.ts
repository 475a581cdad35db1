import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { authenticateAccount } from '../domain/accounts/authenticate-account.ts';
import { authenticateConsoleSession } from '../domain/console-sessions/authenticate-console-session.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { Account } from '../persistence/entities/account.ts';
import { constantTimeEqual } from '../security/tokens.ts';
import { assertConsoleRequest, consoleCookieOf, type RequestPlace } from './console-session.ts';
import type { AuthKind } from './route.ts';

export function bearerToken(ctx: Context): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return match?.[1];
}

/** The request as the console's cookie rules see it (src/http/console-session.ts). */
export const requestPlaceOf = (ctx: Context, publicUrl: string): RequestPlace => ({ headers: ctx.headers, origin: `${ctx.protocol}://${ctx.host}`, publicUrl });

/**
 * Applies a route's auth kind: the caller's account on an API-key route, undefined on the others. An API-key route
 * takes the bearer key, or else the console's session cookie, whose state-changing requests must pass the CSRF rule
 * first (403 `csrf_refused`). Whether the path names that account is checked apart (`checkPathAccount`), after the
 * caller's rate limit.
 */
export async function authenticate(
  kind: AuthKind,
  ctx: Context,
  em: EntityManager,
  services: { adminToken: string; publicUrl: string },
): Promise<Account | undefined> {
  if (kind === 'none') return undefined;
  const token = bearerToken(ctx);
  if (kind === 'admin') {
    if (!token || !constantTimeEqual(token, services.adminToken)) {
      throw new DomainError('unauthorized', 'The admin token is required (Authorization: Bearer <ADMIN_TOKEN>)');
    }
    return undefined;
  }
  const place = requestPlaceOf(ctx, services.publicUrl);
  const cookie = token === undefined ? consoleCookieOf(place) : undefined;
  if (cookie === undefined) return authenticateAccount(em, token);
  assertConsoleRequest(ctx.method, place);
  return (await authenticateConsoleSession(em, cookie)).account;
}

/**
 * A key used on another account's path gets 404, not 403: a caller must not learn which account ids exist.
 */
export function checkPathAccount(account: Account | undefined, pathAccountId: string | undefined): void {
  if (account && pathAccountId !== undefined && pathAccountId !== account.id) throw notFound('Account');
}
