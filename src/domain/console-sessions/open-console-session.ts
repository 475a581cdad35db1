import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConsoleSession } from '../../persistence/entities/console-session.ts';
import { generateToken, sha256Hex } from '../../security/tokens.ts';
import { authenticateAccount } from '../accounts/authenticate-account.ts';
import { consoleSessionHours, consoleSessionTokenPrefix } from './console-session-token.ts';

export interface OpenedConsoleSession {
  /** The cookie's value: shown to the browser once, kept only as its hash. */
  token: string;
  accountId: string;
  expiresAt: Date;
}

/**
 * Signs in to the console with an API key (401 for a key that opens no account): a new session of that account for
 * `consoleSessionHours`. Sessions that have ended, anyone's, are deleted on the way, so the table holds live ones.
 */
export async function openConsoleSession(em: EntityManager, apiKey: string, now = new Date()): Promise<OpenedConsoleSession> {
  const account = await authenticateAccount(em, apiKey);
  const token = generateToken(consoleSessionTokenPrefix);
  const expiresAt = new Date(now.getTime() + consoleSessionHours * 3600_000);
  await em.nativeDelete(ConsoleSession, { expiresAt: { $lte: now } });
  em.create(ConsoleSession, { id: randomUUID(), accountId: account.id, tokenHash: sha256Hex(token), createdAt: now, expiresAt });
  await em.flush();
  return { token, accountId: account.id, expiresAt };
}
