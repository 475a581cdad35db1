import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MediaUnavailableError, processRecording, type MediaSupport, type ProcessingProgress, type RecordingLimits } from '../../media/index.ts';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import type { ObjectStorage } from '../../storage/index.ts';
import type { FileOutcome } from '../../../workflows/process-file.contract.ts';
import { recordingKeys } from './file-deps.ts';
import { outcomeOf, recordFileOutcome } from './record-file-outcome.ts';

/** What the worker processes files with. */
export interface FileProcessingDeps {
  em: EntityManager;
  storage: ObjectStorage;
  media: MediaSupport;
  limits: RecordingLimits;
  /** A local folder for the originals copied out of storage and the delivery files made from them. */
  scratchDir: string;
}

export type FileProgress = ProcessingProgress | { stage: 'downloading' | 'storing'; fraction: number };

export interface ProcessingControl {
  /** Aborting kills ffmpeg and stops the transfers; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: FileProgress) => void) | undefined;
}

/** A delivery file is about 1 MB for 120 s; anything near this is a fault, not a take. */
const deliveryMaxBytes = 64 * 1024 * 1024;
/** A scratch folder older than any attempt can run (15 minutes) was left by a worker that died. */
const abandonedAfterMs = 60 * 60 * 1000;

/**
 * Checks a stored original and, when it passes, makes its delivery file and stores it under the file's delivery key;
 * then records the outcome on the row (once: only a `processing` row changes). Idempotent: a file already decided
 * answers its outcome and does nothing, and a retry after a crash makes the same delivery file at the same key, so
 * a file has one whatever the retries. Answers null when the file is gone.
 *
 * Throws for faults of the machine, which a retry may cure: no ffmpeg (`MediaUnavailableError`), ffmpeg failing on a
 * file it accepted, storage out of reach, a full disk; and the signal's reason when aborted.
 */
export async function processStoredFile(deps: FileProcessingDeps, fileId: string, control: ProcessingControl = {}): Promise<FileOutcome | null> {
  const file = await deps.em.findOne(RecordingFile, { id: fileId });
  if (!file) return null;
  if (file.status !== 'processing') return outcomeOf(file);
  if (!deps.media.available) throw new MediaUnavailableError(deps.media.reason);
  const { signal, onProgress } = control;

  await mkdir(deps.scratchDir, { recursive: true });
  void sweepAbandoned(deps.scratchDir);
  const work = await mkdtemp(join(deps.scratchDir, `${fileId}-`));
  try {
    onProgress?.({ stage: 'downloading', fraction: 0 });
    const originalPath = join(work, 'original');
    const original = await deps.storage.read(file.originalKey, { signal });
    await pipeline(original.body, createWriteStream(originalPath), { signal });

    const result = await processRecording(deps.media.ffmpeg, originalPath, {
      outputPath: join(work, 'delivery.m4a'),
      declaredType: file.declaredType ?? undefined,
      limits: deps.limits,
      signal,
      onProgress,
    });
    if (!result.accepted) {
      return recordFileOutcome(deps, fileId, { status: 'rejected', reason: result.reason, detail: result.detail });
    }

    onProgress?.({ stage: 'storing', fraction: 1 });
    const deliveryKey = recordingKeys(file.accountId, file.id).delivery;
    const stored = await deps.storage.write(deliveryKey, createReadStream(result.delivery.path), { maxBytes: deliveryMaxBytes, contentType: result.delivery.contentType, signal });
    return recordFileOutcome(deps, fileId, {
      status: 'ready',
      detectedType: result.original.type,
      sampleRate: result.original.sampleRate,
      channels: result.original.channels,
      durationMs: result.delivery.durationMs,
      contentType: result.delivery.contentType,
      loudnessLufs: finiteOrNull(result.original.loudness.integratedLufs),
      waveform: result.waveform,
      deliveryKey,
      deliverySizeBytes: stored.sizeBytes,
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const finiteOrNull = (value: number) => (Number.isFinite(value) ? value : null);

/** Removes what attempts killed mid-way left in the scratch folder. Best effort: a failure changes nothing. */
async function sweepAbandoned(scratchDir: string): Promise<void> {
  try {
    for (const entry of await readdir(scratchDir)) {
      const path = join(scratchDir, entry);
      if (Date.now() - (await stat(path)).mtimeMs > abandonedAfterMs) await rm(path, { recursive: true, force: true });
    }
  } catch {
    // Another attempt swept it first, or the folder is unreadable: the next sweep tries again.
  }
}
