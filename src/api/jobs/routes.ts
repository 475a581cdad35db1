import { createRecordingJob } from '../../domain/jobs/job-workflow-client.ts';
import {
  acceptRecordingJob,
  cancelRecordingJob,
  executeRecordingJob,
  selectJobRecording,
  submitJobRecording,
  updateRecordingJob,
} from '../../domain/jobs/job-actions.ts';
import { withArtistLink, withArtistLinks } from '../../domain/artist-links/show-artist-links.ts';
import type { JobView } from '../../domain/jobs/job-view.ts';
import { getRecordingJob, listJobTakes, listRecordingJobs } from '../../domain/jobs/read-jobs.ts';
import { defineRoute, type RequestContext } from '../../http/route.ts';
import { jobFilesSchema, toFileResponse } from '../files/schemas.ts';
import { artistLinkDeps, jobDeps, submitDeps } from '../request-deps.ts';
import {
  createJobBody,
  jobIdQuery,
  jobPage,
  jobSchema,
  listJobsQuery,
  recordingBody,
  selectQuery,
  submittedRecordingSchema,
  updateJobBody,
} from './schemas.ts';

const tag = 'Recording jobs';

/** Every answer that shows a job shows its artist's link (docs/recordings.md, "The artist's link"). */
const shown = async (ctx: RequestContext, job: JobView | Promise<JobView>) => withArtistLink(artistLinkDeps(ctx), await job);
const job = { description: 'The job as stored after the step', schema: jobSchema };
const notFound = { description: 'No such job (or recording) in this account' };
const invalidState = { description: 'Not allowed from the job’s current state (`invalid_state`); the message names both' };
const unknownSegment = { description: 'The filterId names no segment of the job’s app (`unknown_segment`)' };

export const jobRoutes = [
  defineRoute({
    method: 'post',
    path: '/job/create',
    operationId: 'createJob',
    summary: 'Create a recording job for a DRAFT message (status CREATED; the message moves to RECORDING)',
    tag,
    auth: 'account',
    interactive: true,
    body: createJobBody,
    responses: {
      201: { description: 'The new job', schema: jobSchema },
      404: notFound,
      409: { description: 'The message is not DRAFT (`invalid_state`)' },
      422: unknownSegment,
    },
    handler: async ({ body }, ctx) => ({ status: 201, body: await shown(ctx, createRecordingJob(jobDeps(ctx), ctx.account.id, body)) }),
  }),
  defineRoute({
    method: 'put',
    path: '/job/update',
    operationId: 'updateJob',
    summary: 'Change a job while CREATED, ASSIGNED or SUBMITTED (a new artist of an executed job gets a new link; while ASSIGNED, job.assigned)',
    tag,
    auth: 'account',
    interactive: true,
    body: updateJobBody,
    responses: { 200: job, 404: notFound, 409: invalidState, 422: unknownSegment },
    handler: async ({ body }, ctx) => {
      const { id, companyId: _companyId, ...changes } = body;
      return { status: 200, body: await shown(ctx, updateRecordingJob(jobDeps(ctx), ctx.account.id, id, changes)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/job/executeJob',
    operationId: 'executeJob',
    summary: 'Assign the job to its artist (CREATED → ASSIGNED): makes the artist’s link and emits job.assigned with it',
    tag,
    auth: 'account',
    interactive: true,
    query: jobIdQuery,
    responses: { 200: job, 404: notFound, 409: invalidState },
    handler: async ({ query }, ctx) => ({ status: 200, body: await shown(ctx, executeRecordingJob(jobDeps(ctx), ctx.account.id, query.id)) }),
  }),
  defineRoute({
    method: 'post',
    path: '/job/recording',
    operationId: 'submitRecording',
    summary: 'Submit a take: an uploaded file, or a URL the service fetches (ASSIGNED or SUBMITTED → SUBMITTED; emits job.recording_submitted)',
    tag,
    auth: 'account',
    interactive: true,
    query: jobIdQuery,
    body: recordingBody,
    responses: {
      201: { description: 'The take (processing until its file is ready) and the job', schema: submittedRecordingSchema },
      404: { description: 'No such job, or no such file of the job’s app, in this account' },
      409: { description: 'Not allowed from the job’s state (`invalid_state`), the file is already a take (`file_in_use`), or the job has its 20 takes (`too_many_takes`)' },
      422: { description: 'The file was rejected (`file_rejected`), or the URL may not be fetched (`invalid_url`)' },
      503: { description: 'This deployment cannot process recordings now (`media_unavailable`); or Postgres or Temporal is out of reach' },
    },
    handler: async ({ query, body }, ctx) => {
      const take = body.fileId !== undefined ? { fileId: body.fileId } : { url: body.url!, fileName: body.fileName };
      const submitted = await submitJobRecording(submitDeps(ctx), ctx.account.id, query.id, take);
      return { status: 201, body: { ...submitted, job: await shown(ctx, submitted.job) } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/richPush/select',
    aliases: ['/job/select'],
    operationId: 'selectRecording',
    summary: 'Select one of the job’s takes, once ready (SUBMITTED or SELECTED → SELECTED)',
    tag,
    auth: 'account',
    interactive: true,
    query: selectQuery,
    responses: {
      200: job,
      404: notFound,
      409: { description: 'Not allowed from the job’s state (`invalid_state`), or the take is still processing (`file_not_ready`)' },
      422: { description: 'The take was rejected (`file_rejected`)' },
    },
    handler: async ({ query }, ctx) => ({ status: 200, body: await shown(ctx, selectJobRecording(jobDeps(ctx), ctx.account.id, query.file_id)) }),
  }),
  defineRoute({
    method: 'post',
    path: '/job/accept',
    operationId: 'acceptJob',
    summary: 'Accept the selected recording (SELECTED → ACCEPTED; the message becomes READY; emits job.accepted)',
    tag,
    auth: 'account',
    interactive: true,
    query: jobIdQuery,
    responses: { 200: job, 404: notFound, 409: invalidState },
    handler: async ({ query }, ctx) => ({ status: 200, body: await shown(ctx, acceptRecordingJob(jobDeps(ctx), ctx.account.id, query.id)) }),
  }),
  defineRoute({
    method: 'post',
    path: '/job/cancel',
    operationId: 'cancelJob',
    summary: 'Cancel a job that is not final (the message goes back to DRAFT; emits job.cancelled)',
    tag,
    auth: 'account',
    interactive: true,
    query: jobIdQuery,
    responses: { 200: job, 404: notFound, 409: invalidState },
    handler: async ({ query }, ctx) => ({ status: 200, body: await shown(ctx, cancelRecordingJob(jobDeps(ctx), ctx.account.id, query.id)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/job/get',
    operationId: 'getJob',
    summary: 'Get one job with its recordings',
    tag,
    auth: 'account',
    interactive: true,
    query: jobIdQuery,
    responses: { 200: { description: 'The job', schema: jobSchema }, 404: notFound },
    handler: async ({ query }, ctx) => ({ status: 200, body: await shown(ctx, getRecordingJob(ctx.em, ctx.account.id, query.id)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/job/files',
    operationId: 'listJobFiles',
    summary: 'List the job’s takes, oldest first, with their status',
    tag,
    auth: 'account',
    interactive: true,
    query: jobIdQuery,
    responses: { 200: { description: 'The takes', schema: jobFilesSchema }, 404: notFound },
    handler: async ({ query }, { em, account }) => ({ status: 200, body: { jobId: query.id, items: (await listJobTakes(em, account.id, query.id)).map(toFileResponse) } }),
  }),
  defineRoute({
    method: 'get',
    path: '/job/list',
    operationId: 'listJobs',
    summary: 'List jobs, newest first',
    tag,
    auth: 'account',
    interactive: true,
    query: listJobsQuery,
    responses: { 200: { description: 'One page of jobs', schema: jobPage } },
    handler: async ({ query }, ctx) => {
      const page = await listRecordingJobs(ctx.em, ctx.account.id, query);
      return { status: 200, body: { ...page, items: await withArtistLinks(artistLinkDeps(ctx), page.items) } };
    },
  }),
];
