import type { EntityManager } from '@mikro-orm/postgresql';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { DomainError, notFound } from '../errors.ts';

/** A file of this account, or 404: another account's file is as invisible as one that does not exist. */
export async function findOwnedFile(em: EntityManager, accountId: string, fileId: string): Promise<RecordingFile> {
  const file = await em.findOne(RecordingFile, { id: fileId, accountId });
  if (!file) throw notFound('File');
  return file;
}

/**
 * A file that devices may play: `ready`. One still processing is 409 `file_not_ready` (ask again soon); a rejected one
 * is 422 `file_rejected`, naming why.
 */
export function requireReadyFile(file: RecordingFile): void {
  if (file.status === 'processing') throw new DomainError('file_not_ready', `File ${file.id} is still processing; it can be used once its status is ready`);
  if (file.status === 'rejected') throw new DomainError('file_rejected', `File ${file.id} was rejected (${file.reason ?? 'unknown'}): ${file.detail ?? ''}`.trim());
}
