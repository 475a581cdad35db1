import type { EntityManager } from '@mikro-orm/postgresql';
import { ConsoleSession } from '../../persistence/entities/console-session.ts';
import { sha256Hex } from '../../security/tokens.ts';

/** Signs out: the session is deleted, so its cookie answers 401 from now on. A token that is no session changes nothing. */
export async function closeConsoleSession(em: EntityManager, token: string): Promise<void> {
  await em.nativeDelete(ConsoleSession, { tokenHash: sha256Hex(token) });
}
