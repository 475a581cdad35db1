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
 * Applies a route's auth kind. A key used on another account's path gets 404, not 403: a caller must not learn
 * which account ids exist.
 */
export async function authenticate(
  kind: AuthKind,
  ctx: Context,
  em: EntityManager,
  adminToken: string,
  pathAccountId: string | undefined,
): Promise<Account | undefined> {
  if (kind === 'none') return undefined;
  const token = bearerToken(ctx);
  if (kind === 'admin') {
    if (!token || !constantTimeEqual(token, adminToken)) {
      throw new DomainError('unauthorized', 'The admin token is required (Authorization: Bearer <ADMIN_TOKEN>)');
    }
    return undefined;
  }
  const account = await authenticateAccount(em, token);
  if (pathAccountId !== undefined && pathAccountId !== account.id) throw notFound('Account');
  return account;
}
