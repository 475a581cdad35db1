import type { ArtistLinkDeps } from '../domain/artist-links/artist-link-deps.ts';
import type { ArtistTakeDeps } from '../domain/artist-takes/artist-take-deps.ts';
import type { EndpointDeps } from '../domain/endpoints/create-endpoint.ts';
import type { PublishDeps } from '../domain/events/publish-event.ts';
import type { IngestDeps } from '../domain/ingest/ingest-deps.ts';
import type { FileDeps } from '../domain/files/file-deps.ts';
import type { SubmitDeps } from '../domain/jobs/job-actions.ts';
import type { JobDeps } from '../domain/jobs/job-workflow-client.ts';
import type { RequestContext } from '../http/route.ts';

/** The dependencies a domain function needs, taken from the request's context. */
export const endpointDeps = ({ em, services }: RequestContext): EndpointDeps => ({ em, secrets: services.secrets, outbound: services.outbound });
export const publishDeps = ({ em, services }: RequestContext): PublishDeps => ({ em, temporal: services.temporal, delivery: services.delivery });
export const jobDeps = ({ em, services, idempotency }: RequestContext): JobDeps => ({ em, temporal: services.temporal, updateId: idempotency?.operationId });
export const artistLinkDeps = ({ em, services }: RequestContext): ArtistLinkDeps => ({
  em,
  secrets: services.secrets,
  publicUrl: services.publicUrl,
  graceHours: services.artistLinkGraceHours,
});
export const ingestDeps = ({ em, services }: RequestContext): IngestDeps => ({
  em,
  temporal: services.temporal,
  secrets: services.secrets,
  rateLimiter: services.ingest.rateLimiter,
  connections: services.ingest.connections,
  wakeRelay: services.ingest.wakeRelay.wake,
  defaultRateLimit: services.ingest.defaultRateLimit,
});

/** The file code's dependencies: recording URLs are made under PUBLIC_URL, else the address the request was made to. */
export const fileDeps = ({ em, services, request }: RequestContext): FileDeps => ({
  em,
  temporal: services.temporal,
  files: services.files,
  baseUrl: services.files.publicUrl ?? request.origin,
  logger: services.logger,
});

/** A job step that may make a file (a take submitted as a URL), checked against the outbound address policy. */
export const submitDeps = (ctx: RequestContext): SubmitDeps => ({ ...jobDeps(ctx), ...fileDeps(ctx), outbound: ctx.services.outbound });

/** An artist's take: submitted as the account's are, behind the link's expiry. */
export const artistTakeDeps = (ctx: RequestContext): ArtistTakeDeps => ({ ...submitDeps(ctx), graceHours: ctx.services.artistLinkGraceHours });
