import type { Readable } from 'node:stream';
import { bytesSource, checkDetectedType, detectAudioType, isUploadContentType, type Rejection } from '../../media/index.ts';
import { RecordingFile, type FileSource } from '../../persistence/entities/recording-file.ts';
import { newId } from '../../security/ids.ts';
import { recordingUrl } from '../../security/recording-urls.ts';
import { discardMetered, isStorageError } from '../../storage/index.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';
import { DomainError, notFound } from '../errors.ts';
import { Job } from '../../persistence/entities/job.ts';
import { recordingKeys, requireMedia, type FileDeps } from './file-deps.ts';
import { startFileRun } from './start-file-run.ts';
import { readHead, withHead } from './upload-body.ts';

export interface Upload {
  accountId: string;
  appId: string;
  /** The job the file is a take of (an artist's upload); null for the account's own uploads. */
  jobId: string | null;
  /** Kept for display only, never as a path. */
  fileName: string | null;
  /** The request's Content-Type: any audio type, `application/octet-stream` or none. */
  declaredType: string | undefined;
  /** The request's Content-Length, when it sent one: a body announced over the cap is refused before it is read. */
  declaredLength: number | undefined;
  /** The raw audio, read as it streams and never held whole. */
  body: Readable;
  source: Exclude<FileSource, 'url'>;
}

/** How much of the start the type is read from: the sniffer's longest look (ID3 tags aside) with room to spare. */
const headBytes = 64 * 1024;

/**
 * Takes an upload: checks what can be checked before reading (the app, the job, the Content-Type, the announced length,
 * that recordings can be processed at all), reads the type from the first bytes, streams the body into storage under
 * the size cap, commits the file and starts its processing run. Answers the file: `processing`, or `rejected` when its
 * first bytes are not audio or not the declared type (nothing is stored then).
 *
 * Failures: 404 (app or job), 415 (`unsupported_media_type`), 503 (`media_unavailable`), 413 (`too_large`: the body
 * passed RECORDING_MAX_BYTES; reading stopped there, nothing was stored, and the answer closes the connection).
 */
export async function acceptUpload(deps: FileDeps, upload: Upload): Promise<RecordingFile> {
  const { em, files } = deps;
  await findOwnedApp(em, upload.accountId, upload.appId);
  if (upload.jobId !== null && (await em.count(Job, { id: upload.jobId, accountId: upload.accountId, appId: upload.appId })) === 0) throw notFound('Job');
  if (!isUploadContentType(upload.declaredType)) {
    throw new DomainError('unsupported_media_type', 'Send the recording as its audio Content-Type (audio/wav, audio/mpeg, …) or application/octet-stream');
  }
  requireMedia(files);
  if (upload.declaredLength !== undefined && upload.declaredLength > files.limits.maxBytes) throw tooLarge(files.limits.maxBytes);

  const id = newId('fil_');
  const keys = recordingKeys(upload.accountId, id);
  const { maxBytes } = files.limits;
  let rejection: Rejection | undefined;
  let measured: { sizeBytes: number; sha256: string };
  try {
    const { head, ended } = await readHead(upload.body, headBytes);
    rejection = await rejectionOfHead(head, ended, upload.declaredType);
    // A refused body is read to its end (under the cap) and kept nowhere, so that the answer goes out on its connection.
    const body = withHead(head, upload.body, ended);
    measured = rejection
      ? await discardMetered(body, { maxBytes })
      : await files.storage.write(keys.original, body, { maxBytes, contentType: 'application/octet-stream' });
  } catch (error) {
    if (isStorageError(error, 'too_large')) throw tooLarge(maxBytes);
    // The client hung up, or its body broke off: nothing was stored, and nobody waits for the answer.
    if (upload.body.readableAborted || upload.body.errored) throw new DomainError('validation_failed', 'The upload ended before its body was complete');
    throw error;
  }

  const file = em.create(RecordingFile, {
    id,
    accountId: upload.accountId,
    appId: upload.appId,
    jobId: upload.jobId,
    source: upload.source,
    sourceUrl: null,
    status: rejection ? 'rejected' : 'processing',
    reason: rejection?.reason ?? null,
    detail: rejection?.detail ?? null,
    fileName: upload.fileName,
    declaredType: upload.declaredType ?? null,
    sizeBytes: measured.sizeBytes,
    sha256: measured.sha256,
    originalKey: keys.original,
    url: recordingUrl(deps.baseUrl, files.urlKey, id),
    processedAt: rejection ? new Date() : null,
  });
  try {
    await em.flush();
  } catch (error) {
    // No row names the original: nothing would ever delete it.
    if (!rejection) await files.storage.delete(keys.original).catch(() => undefined);
    throw error;
  }
  if (!rejection) await startFileRun(deps, file);
  return file;
}

/**
 * The verdict of the first bytes: `not_audio` or `type_mismatch`, or nothing when they pass. A start that shows
 * nothing but ID3 tags longer than it (a cover picture) decides nothing: the whole file is checked on the worker.
 */
async function rejectionOfHead(head: Buffer, ended: boolean, declaredType: string | undefined): Promise<Rejection | undefined> {
  const checked = checkDetectedType(await detectAudioType(bytesSource(head)), declaredType);
  if (checked.accepted) return undefined;
  if (checked.reason === 'not_audio' && !ended && head.subarray(0, 3).toString('latin1') === 'ID3') return undefined;
  return checked;
}

/** 413, closing the connection: the rest of the body is never read. */
const tooLarge = (maxBytes: number) =>
  new DomainError('too_large', `The recording is over the limit of ${maxBytes} bytes (RECORDING_MAX_BYTES)`, undefined, { Connection: 'close' });
