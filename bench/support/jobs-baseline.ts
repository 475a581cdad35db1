import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { z } from 'zod';
import type { createJobBody, recordingBody, updateJobBody } from '../../src/api/jobs/schemas.ts';
import { artistLinkDeps } from '../../src/api/request-deps.ts';
import { routes } from '../../src/api/routes.ts';
import { withArtistLink } from '../../src/domain/artist-links/show-artist-links.ts';
import { findOwnedApp } from '../../src/domain/apps/find-owned-app.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { applyJobAction } from '../../src/domain/jobs/apply-job-action.ts';
import { createJobRecord } from '../../src/domain/jobs/create-job-record.ts';
import { findOwnedFile, requireReadyFile } from '../../src/domain/files/find-owned-file.ts';
import { findOwnedJob } from '../../src/domain/jobs/find-owned-job.ts';
import type { JobView } from '../../src/domain/jobs/job-view.ts';
import { getNotification } from '../../src/domain/notifications/get-notification.ts';
import { buildApp, requestListener } from '../../src/http/app.ts';
import type { RequestContext, RouteSpec } from '../../src/http/route.ts';
import type { ApiServices } from '../../src/http/services.ts';

type Handler = RouteSpec['handler'];

/** The transaction runs on a fresh fork of the API's pool, as the activity runs it on a fresh fork of the worker's. */
const writer = (ctx: RequestContext) => ctx.services.orm.em.fork();
const accountOf = (ctx: RequestContext) => ctx.account!.id;
/** The job as the service's routes answer it: with its artist's link, read after the write. */
const shown = async (ctx: RequestContext, job: JobView | Promise<JobView>) => withArtistLink(artistLinkDeps(ctx), await job);

/**
 * The job routes' handlers without Temporal: the same pre-checks as src/domain/jobs/job-actions.ts and
 * job-workflow-client.ts (app and message, or job and recording, of the account), then, where the service sends the
 * workflow an update, the write the workflow's activity would make (`createJobRecord` / `applyJobAction`, with a
 * fresh transition id) called in the request. `GET /job/get` is not replaced: it never involves Temporal.
 */
const direct: Record<string, Handler> = {
  createJob: async ({ body }, ctx) => {
    const { appId, ...fields } = body as z.output<typeof createJobBody>;
    const accountId = accountOf(ctx);
    await findOwnedApp(ctx.em, accountId, appId);
    await getNotification(ctx.em, accountId, fields.notificationId);
    const job = createJobRecord(writer(ctx), { ...fields, jobId: randomUUID(), accountId, appId, transitionId: randomUUID() });
    return { status: 201, body: await shown(ctx, job) };
  },
  updateJob: async ({ body }, ctx) => {
    const { id, companyId: _companyId, appId, ...changes } = body as z.output<typeof updateJobBody>;
    const job = await findOwnedJob(ctx.em, accountOf(ctx), id);
    if (appId !== undefined && appId !== job.appId) {
      throw new DomainError('validation_failed', 'A job cannot move to another app', [{ path: 'body.appId', message: 'must be the job’s app' }]);
    }
    return { status: 200, body: await shown(ctx, applyJobAction(writer(ctx), { jobId: job.id, transitionId: randomUUID(), action: 'update', changes }, ctx.services.secrets)) };
  },
  executeJob: async ({ query }, ctx) => {
    const job = await findOwnedJob(ctx.em, accountOf(ctx), (query as { id: string }).id);
    return { status: 200, body: await shown(ctx, applyJobAction(writer(ctx), { jobId: job.id, transitionId: randomUUID(), action: 'execute' }, ctx.services.secrets)) };
  },
  submitRecording: async ({ query, body }, ctx) => {
    const job = await findOwnedJob(ctx.em, accountOf(ctx), (query as { id: string }).id);
    const { fileId } = body as z.output<typeof recordingBody>;
    const take = await findOwnedFile(ctx.em, accountOf(ctx), fileId!);
    const recording = { fileId: take.id, url: take.url };
    const stored = await applyJobAction(writer(ctx), { jobId: job.id, transitionId: randomUUID(), action: 'submitRecording', fileId: randomUUID(), recording }, ctx.services.secrets);
    const file = stored.recordings.find((candidate) => candidate.fileId === fileId)!;
    return { status: 201, body: { ...file, job: await shown(ctx, stored) } };
  },
  selectRecording: async ({ query }, ctx) => {
    const fileId = (query as { file_id: string }).file_id;
    const file = await findOwnedFile(ctx.em, accountOf(ctx), fileId);
    requireReadyFile(file);
    const job = await findOwnedJob(ctx.em, accountOf(ctx), file.jobId!);
    return { status: 200, body: await shown(ctx, applyJobAction(writer(ctx), { jobId: job.id, transitionId: randomUUID(), action: 'select', fileId }, ctx.services.secrets)) };
  },
  acceptJob: async ({ query }, ctx) => {
    const job = await findOwnedJob(ctx.em, accountOf(ctx), (query as { id: string }).id);
    return { status: 200, body: await shown(ctx, applyJobAction(writer(ctx), { jobId: job.id, transitionId: randomUUID(), action: 'accept' }, ctx.services.secrets)) };
  },
};

export interface JobsBaselineServer {
  url: string;
  close: () => Promise<void>;
}

/**
 * The service's own HTTP API (`buildApp` with every route: request id, access log, error handler, router, bearer
 * authentication, zod validation, the same JSON answers) on the same services, except that the job routes above
 * write to Postgres themselves instead of going through the job's workflow. What differs from the service is
 * exactly the durable workflow update.
 */
export async function startJobsBaseline(services: ApiServices): Promise<JobsBaselineServer> {
  const baselineRoutes = routes.map((route) => (direct[route.operationId] ? { ...route, handler: direct[route.operationId]! } : route));
  const missing = Object.keys(direct).filter((operationId) => !routes.some((route) => route.operationId === operationId));
  if (missing.length) throw new Error(`no such routes to replace: ${missing.join(', ')}`);
  const server = createServer(requestListener(buildApp(baselineRoutes, services)));
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
