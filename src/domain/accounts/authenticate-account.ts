import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../../persistence/entities/account.ts';
import { sha256Hex } from '../../security/tokens.ts';
import { DomainError } from '../errors.ts';
import { apiKeyPrefix } from './create-account.ts';

/** Finds the account behind an API key by its hash; an unknown or malformed key is a 401. */
export async function authenticateAccount(em: EntityManager, apiKey: string | undefined): Promise<Account> {
  if (!apiKey?.startsWith(apiKeyPrefix)) throw unauthorized();
  const account = await em.findOne(Account, { apiKeyHash: sha256Hex(apiKey) });
  if (!account) throw unauthorized();
  return account;
}

const unauthorized = () => new DomainError('unauthorized', 'A valid API key is required (Authorization: Bearer <apiKey>)');
