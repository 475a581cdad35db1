import { call, type ApiResponse, type TestAccount } from './api.ts';
import { newJob } from './jobs.ts';
import { until } from './wait.ts';

// The artist's side of a recording job: the link's token, and the take routes it opens with no API key.

/** The token at the end of an artist's link, `{PUBLIC_URL}/artist/{token}`. */
export const tokenOf = (link: { url: string }) => link.url.slice(link.url.lastIndexOf('/') + 1);

/** A job executed for its artist (ASSIGNED): the job as executeJob answers it, and its link's token. */
export async function assignedJob(account: TestAccount & { baseUrl?: string }, overrides: Record<string, unknown> = {}): Promise<{ job: any; token: string }> {
  const job = await newJob(account, overrides);
  const executed = await call('POST', `/job/executeJob?id=${job.id}`, { token: account.apiKey, ...(account.baseUrl ? { baseUrl: account.baseUrl } : {}) });
  if (executed.status !== 200) throw new Error(`executeJob failed: ${executed.status} ${JSON.stringify(executed.body)}`);
  return { job: executed.body, token: tokenOf(executed.body.artistLink) };
}

export interface TakeOptions {
  fileName?: string;
  /** `audio/wav` by default; null sends no Content-Type. */
  contentType?: string | null;
  baseUrl?: string;
}

/** POST /artist/{token}/takes with the bytes as the body, and no API key. */
export function uploadTake(token: string, bytes: Buffer, options: TakeOptions = {}): Promise<ApiResponse> {
  const query = options.fileName === undefined ? '' : `?${new URLSearchParams({ fileName: options.fileName }).toString()}`;
  const contentType = options.contentType === undefined ? 'audio/wav' : options.contentType;
  return call('POST', `/artist/${token}/takes${query}`, {
    rawBody: bytes,
    headers: contentType === null ? {} : { 'content-type': contentType },
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
  });
}

/** GET /artist/{token}/takes. */
export const listTakes = (token: string, baseUrl?: string) => call('GET', `/artist/${token}/takes`, baseUrl ? { baseUrl } : {});

/** DELETE /artist/{token}/takes/{fileId}. */
export const deleteTake = (token: string, fileId: string, baseUrl?: string) => call('DELETE', `/artist/${token}/takes/${fileId}`, baseUrl ? { baseUrl } : {});

/** The take once its processing has decided it, as the artist's list shows it. */
export async function settledTake(token: string, fileId: string, options: { baseUrl?: string; timeoutMs?: number } = {}): Promise<any> {
  const read = async () => ((await listTakes(token, options.baseUrl)).body?.items ?? []).find((take: any) => take.fileId === fileId);
  return until(`take ${fileId} processed`, read, (take) => take?.status === 'ready' || take?.status === 'rejected', { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 200 });
}
