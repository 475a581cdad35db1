import type { EntityManager } from '@mikro-orm/postgresql';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { recordingSignatureMatches } from '../../security/recording-urls.ts';
import { isStorageError, type ByteRange, type ObjectRead } from '../../storage/index.ts';
import { DomainError, notFound } from '../errors.ts';
import type { FileSettings } from './file-deps.ts';

/** How long a presigned GET of a delivery file works: a device fetches it at once; a fresh one comes each time. */
const presignSeconds = 900;

export type RecordingPlayback = { redirectTo: string } | { read: ObjectRead };

/**
 * The delivery file behind a recording URL, for a device that holds no key: the signature must be the file's (else
 * 404, as for an unknown file), and the file `ready` (409 `file_not_ready` while it processes; 404 once rejected or
 * deleted). On S3 the answer is a fresh presigned GET to redirect to; on local disk, the bytes, whole or the `range`
 * asked for (416 `range_not_satisfiable` past the end, with the size to put in `Content-Range`).
 */
export async function openRecording(
  deps: { em: EntityManager; files: FileSettings },
  fileId: string,
  signature: string,
  options: { range?: ByteRange | undefined; signal?: AbortSignal | undefined } = {},
): Promise<RecordingPlayback> {
  const { storage, urlKey } = deps.files;
  if (!recordingSignatureMatches(urlKey, fileId, signature)) throw notFound('Recording');
  const file = await deps.em.findOne(RecordingFile, { id: fileId });
  if (!file) throw notFound('Recording');
  if (file.status === 'processing') throw new DomainError('file_not_ready', 'The recording is still processing; ask again in a few seconds', undefined, { 'Retry-After': '5' });
  if (file.status !== 'ready' || !file.deliveryKey) throw notFound('Recording');
  if (storage.presignedGetUrl) return { redirectTo: await storage.presignedGetUrl(file.deliveryKey, { expiresInSeconds: presignSeconds }) };
  try {
    return { read: await storage.read(file.deliveryKey, options) };
  } catch (error) {
    if (isStorageError(error, 'range_not_satisfiable')) {
      throw new DomainError('range_not_satisfiable', 'The range asks for bytes past the end of the recording', undefined, {
        'Content-Range': `bytes */${file.deliverySizeBytes ?? 0}`,
      });
    }
    if (isStorageError(error, 'not_found')) throw notFound('Recording');
    throw error;
  }
}
