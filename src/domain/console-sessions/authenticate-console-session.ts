import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../../persistence/entities/account.ts';
import { ConsoleSession } from '../../persistence/entities/console-session.ts';
import { sha256Hex } from '../../security/tokens.ts';
import { DomainError } from '../errors.ts';
import { consoleSessionTokenPattern } from './console-session-token.ts';

export interface ConsoleSignIn {
  account: Account;
  expiresAt: Date;
}

/**
 * The account behind a console cookie, found by the token's SHA-256 as API keys are; a token that is no live session
 * (malformed, unknown, signed out or past its 12 h) is a 401.
 */
export async function authenticateConsoleSession(em: EntityManager, token: string, now = new Date()): Promise<ConsoleSignIn> {
  if (!consoleSessionTokenPattern.test(token)) throw sessionEnded();
  const session = await em.findOne(ConsoleSession, { tokenHash: sha256Hex(token), expiresAt: { $gt: now } });
  if (!session) throw sessionEnded();
  const account = await em.findOneOrFail(Account, { id: session.accountId });
  return { account, expiresAt: session.expiresAt };
}

const sessionEnded = () => new DomainError('unauthorized', 'The console session has ended or never was; sign in again (POST /console/session)');
