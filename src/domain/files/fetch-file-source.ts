import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecordingLimits } from '../../media/index.ts';
import { OutboundRequestError, type OutboundHttpClient } from '../../outbound/http-client.ts';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { isStorageError, type ObjectStorage } from '../../storage/index.ts';
import type { FileOutcome } from '../../../workflows/process-file.contract.ts';
import { outcomeOf, recordFileOutcome } from './record-file-outcome.ts';

export interface FileFetchDeps {
  em: EntityManager;
  storage: ObjectStorage;
  /** The outbound client: the address policy at connect time, no redirects. */
  http: OutboundHttpClient;
  limits: RecordingLimits;
}

/** One attempt's bound on the whole transfer; a slow server is retried. */
export const fetchTimeoutMs = 120_000;

/** The URL's file is stored as the original, ready to be processed. */
export interface FetchedSource {
  status: 'stored';
}

/**
 * Fetches a file submitted as a URL into storage, as its original, under the outbound webhooks' address policy, with
 * the size cap applied while it streams and a time limit. What the URL's server says is a verdict on the file
 * (`unreachable` for an answer other than 2xx or a blocked address, `too_large` past the cap), recorded on its row;
 * a network failure, a timeout or a 5xx/429 throws, to be retried. Idempotent: a stored original is not fetched again,
 * and a decided file answers its outcome. Null when the file is gone.
 */
export async function fetchFileSource(deps: FileFetchDeps, fileId: string, signal?: AbortSignal): Promise<FetchedSource | FileOutcome | null> {
  const file = await deps.em.findOne(RecordingFile, { id: fileId });
  if (!file) return null;
  if (file.status !== 'processing') return outcomeOf(file);
  if (file.sha256 !== null && file.sha256 !== undefined) return { status: 'stored' };
  const reject = (reason: string, detail: string) => recordFileOutcome(deps, fileId, { status: 'rejected', reason, detail });
  const url = file.sourceUrl!;
  const { maxBytes } = deps.limits;
  const attempt = AbortSignal.any([AbortSignal.timeout(fetchTimeoutMs), ...(signal ? [signal] : [])]);

  let response;
  try {
    response = await deps.http.download(url, attempt);
  } catch (error) {
    if (error instanceof OutboundRequestError && error.blocked) return reject('unreachable', `The URL may not be fetched: ${error.message}.`);
    throw error;
  }
  const { status, contentLength, body } = response;
  if (status < 200 || status > 299) {
    body.destroy();
    if (status === 408 || status === 429 || status >= 500) throw new Error(`the URL answered HTTP ${status}; retrying`);
    return reject('unreachable', `The URL answered HTTP ${status}${status >= 300 && status < 400 ? ' (a redirect, which is not followed)' : ''}.`);
  }
  if (contentLength !== undefined && contentLength > maxBytes) {
    body.destroy();
    return reject('too_large', `The URL's file has ${contentLength} bytes, over the limit of ${maxBytes}.`);
  }
  try {
    const stored = await deps.storage.write(file.originalKey, body, { maxBytes, contentType: 'application/octet-stream', signal: attempt });
    await deps.em.nativeUpdate(RecordingFile, { id: fileId, status: 'processing' }, { sizeBytes: stored.sizeBytes, sha256: stored.sha256 });
    return { status: 'stored' };
  } catch (error) {
    if (isStorageError(error, 'too_large')) return reject('too_large', `The URL's file is over the limit of ${maxBytes} bytes.`);
    throw error;
  } finally {
    body.destroy();
  }
}
