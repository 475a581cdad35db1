import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../../persistence/entities/account.ts';
import { generateToken, sha256Hex } from '../../security/tokens.ts';

export const apiKeyPrefix = 'rpk_';

export interface CreatedAccount {
  account: Account;
  /** Shown to the caller once; only its hash is stored. */
  apiKey: string;
}

export async function createAccount(em: EntityManager, input: { name: string }): Promise<CreatedAccount> {
  const apiKey = generateToken(apiKeyPrefix);
  const account = em.create(Account, { id: randomUUID(), name: input.name, apiKeyHash: sha256Hex(apiKey) });
  await em.flush();
  return { account, apiKey };
}
