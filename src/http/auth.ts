import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { authenticateAccount } from '../domain/accounts/authenticate-account.ts';
import { DomainError, notFound } from '../domain/errors.ts';
import type { Account } from '../persistence/entities/account.ts';
import { constantTimeEqual } from '../security/tokens.ts';
import type { AuthKind } from './route.ts';

export function bearerToken(ctx: Context): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return match?.[1];
}

/**
 * Applies a route's auth kind: the caller's account on an API-key route, undefined on the others. Whether the path
 * names that account is checked apart (`checkPathAccount`), after the caller's rate limit.
 */
export async function authenticate(kind: AuthKind, ctx: Context, em: EntityManager, adminToken: string): Promise<Account | undefined> {
  if (kind === 'none') return undefined;
  const token = bearerToken(ctx);
  if (kind === 'admin') {
    if (!token || !constantTimeEqual(token, adminToken)) {
      throw new DomainError('unauthorized', 'The admin token is required (Authorization: Bearer <ADMIN_TOKEN>)');
    }
    return undefined;
  }
  return authenticateAccount(em, token);
}

/**
 * A key used on another account's path gets 404, not 403: a caller must not learn which account ids exist.
 */
export function checkPathAccount(account: Account | undefined, pathAccountId: string | undefined): void {
  if (account && pathAccountId !== undefined && pathAccountId !== account.id) throw notFound('Account');
}
