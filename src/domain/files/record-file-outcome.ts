import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import type { ObjectStorage } from '../../storage/index.ts';
import type { FileOutcome } from '../../../workflows/process-file.contract.ts';

type ReadyFields = Pick<
  RecordingFile,
  'detectedType' | 'sampleRate' | 'channels' | 'durationMs' | 'contentType' | 'loudnessLufs' | 'waveform' | 'deliveryKey' | 'deliverySizeBytes'
>;

export type OutcomeFields = { status: 'rejected'; reason: string; detail: string } | ({ status: 'ready' } & ReadyFields);

/**
 * Records how a file's processing ended, once: only a row still `processing` changes, under its lock, so a retry, or
 * a second attempt that ran beside the first, leaves the outcome that was recorded first. Answers the outcome as
 * stored, or null when the file was deleted meanwhile (its delivery file, if this made one, goes too).
 */
export async function recordFileOutcome(deps: { em: EntityManager; storage: ObjectStorage }, fileId: string, fields: OutcomeFields): Promise<FileOutcome | null> {
  const outcome = await deps.em.transactional(async (tx) => {
    const file = await tx.findOne(RecordingFile, { id: fileId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!file) return null;
    if (file.status === 'processing') tx.assign(file, { ...fields, processedAt: new Date() });
    return outcomeOf(file);
  });
  if (outcome === null && fields.status === 'ready' && fields.deliveryKey) await deps.storage.delete(fields.deliveryKey);
  return outcome;
}

export function outcomeOf(file: RecordingFile): FileOutcome {
  return {
    status: file.status === 'ready' ? 'ready' : 'rejected',
    reason: file.reason ?? null,
    detail: file.detail ?? null,
    durationMs: file.durationMs ?? null,
    loudnessLufs: file.loudnessLufs ?? null,
  };
}
