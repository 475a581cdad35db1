import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';

/**
 * A console sign-in (docs/console.md, "Sign-in"): an opaque token in an httpOnly cookie stands for the account whose
 * API key was posted once. Only the token's SHA-256 is kept, so a copy of this table opens nothing. It ends at
 * `expiresAt` (12 h after sign-in) or when the row is deleted (sign-out).
 */
export const ConsoleSession = defineEntity({
  name: 'ConsoleSession',
  tableName: 'console_sessions',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id').deleteRule('cascade'),
    /** sha256 hex of the token. */
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime(),
    expiresAt: p.datetime().index(),
  },
});

export type ConsoleSession = InferEntity<typeof ConsoleSession>;
