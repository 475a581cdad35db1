import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { derivedId, newId } from '../../security/ids.ts';
import type { AllowList, Resolve } from '../../security/ip-policy.ts';
import { recordingUrl } from '../../security/recording-urls.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';
import { checkEndpointUrl } from '../endpoints/check-endpoint-url.ts';
import { recordingKeys, requireMedia, type FileDeps } from './file-deps.ts';
import { startFileRun } from './start-file-run.ts';

export interface UrlFile {
  accountId: string;
  appId: string;
  jobId: string | null;
  url: string;
  fileName: string | null;
  /**
   * The request's operation id (its Idempotency-Key): the file's id is derived from it, so a retry finds the file its
   * first try made instead of fetching the URL twice.
   */
  operationId?: string | undefined;
}

/**
 * A file submitted as a URL (kept for compatibility): the URL is checked against the outbound address policy (https,
 * no credentials, a public address, else 422 `invalid_url`), the file is committed `processing`, and its run fetches
 * the URL into storage (size cap, time limit, the policy again at connect time) before checking it like an upload.
 */
export async function createUrlFile(deps: FileDeps & { outbound: { allow: AllowList; resolve: Resolve } }, input: UrlFile): Promise<RecordingFile> {
  const { em, files } = deps;
  await findOwnedApp(em, input.accountId, input.appId);
  requireMedia(files);
  const url = await checkEndpointUrl(input.url, deps.outbound);
  const id = input.operationId === undefined ? newId('fil_') : derivedId('fil_', input.accountId, input.operationId);
  const earlier = await em.findOne(RecordingFile, { id });
  if (earlier) return earlier;
  const file = em.create(RecordingFile, {
    id,
    accountId: input.accountId,
    appId: input.appId,
    jobId: input.jobId,
    source: 'url',
    sourceUrl: url,
    status: 'processing',
    fileName: input.fileName ?? lastSegment(url),
    originalKey: recordingKeys(input.accountId, id).original,
    url: recordingUrl(deps.baseUrl, files.urlKey, id),
  });
  await em.flush();
  await startFileRun(deps, file);
  return file;
}

/** The name a URL gives its file (`take-1.m4a`), for display. */
function lastSegment(url: string): string | null {
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // A stray % in the path: the name stays as written.
  }
  return name === '' ? null : name.replaceAll('\u0000', '').slice(0, 255);
}
