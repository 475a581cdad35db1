import type { EntityManager } from '@mikro-orm/postgresql';
import { recordingKeys } from '../../src/domain/files/file-deps.ts';
import { RecordingFile } from '../../src/persistence/entities/recording-file.ts';
import { newId } from '../../src/security/ids.ts';

/**
 * A ready file row, as processing would leave one, for benches that time what is done with takes (the job's steps,
 * sends) and not the processing itself; nothing is stored at its keys.
 */
export async function seedReadyFile(em: EntityManager, accountId: string, appId: string): Promise<{ fileId: string; url: string }> {
  const id = newId('fil_');
  const keys = recordingKeys(accountId, id);
  const url = `https://push.example.com/recordings/${id}/${'b'.repeat(32)}.m4a`;
  em.create(RecordingFile, {
    id,
    accountId,
    appId,
    source: 'upload',
    status: 'ready',
    fileName: 'bench.wav',
    durationMs: 10_000,
    contentType: 'audio/mp4',
    originalKey: keys.original,
    deliveryKey: keys.delivery,
    url,
    processedAt: new Date(),
  });
  await em.flush();
  return { fileId: id, url };
}
