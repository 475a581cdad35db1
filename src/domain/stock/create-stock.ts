import { randomUUID } from 'node:crypto';
import { Stock } from '../../persistence/entities/stock.ts';
import type { AllowList, Resolve } from '../../security/ip-policy.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';
import { notFound } from '../errors.ts';
import { createUrlFile } from '../files/create-url-file.ts';
import type { FileDeps } from '../files/file-deps.ts';
import { findOwnedFile, requireReadyFile } from '../files/find-owned-file.ts';

export interface StockInput {
  appId: string;
  title: string;
  richPushLevel?: string | undefined;
  /** A file of the app (POST /file/upload), or a URL the service fetches and checks like an upload. */
  recording: { fileId: string } | { url: string };
}

/**
 * Adds a stock recording to an app: it plays a file the service holds, an uploaded one (of the app, not rejected), or
 * one fetched from a URL. A message made from it plays that file once it is ready.
 */
export async function createStock(deps: FileDeps & { outbound: { allow: AllowList; resolve: Resolve } }, accountId: string, input: StockInput): Promise<Stock> {
  const { em } = deps;
  await findOwnedApp(em, accountId, input.appId);
  const file =
    'fileId' in input.recording
      ? await findOwnedFile(em, accountId, input.recording.fileId)
      : await createUrlFile(deps, { accountId, appId: input.appId, jobId: null, url: input.recording.url, fileName: null });
  if (file.appId !== input.appId) throw notFound('File');
  if (file.status === 'rejected') requireReadyFile(file);
  const stock = em.create(Stock, {
    id: randomUUID(),
    accountId,
    appId: input.appId,
    title: input.title,
    url: file.url,
    fileId: file.id,
    richPushLevel: input.richPushLevel ?? null,
  });
  await em.flush();
  return stock;
}
