import { createRecordingJob } from '../../domain/jobs/job-workflow-client.ts';
import {
  acceptRecordingJob,
  cancelRecordingJob,
  executeRecordingJob,
  selectJobRecording,
  submitJobRecording,
  updateRecordingJob,
} from '../../domain/jobs/job-actions.ts';
import { getRecordingJob, listJobTakes, listRecordingJobs } from '../../domain/jobs/read-jobs.ts';
import { defineRoute } from '../../http/route.ts';
import { jobFilesSchema, toFileResponse } from '../files/schemas.ts';
import { jobDeps, submitDeps } from '../request-deps.ts';
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
    handler: async ({ body }, ctx) => ({ status: 201, body: await createRecordingJob(jobDeps(ctx), ctx.account.id, body) }),
  }),
  defineRoute({
    method: 'put',
    path: '/job/update',
    operationId: 'updateJob',
    summary: 'Change a job while CREATED, ASSIGNED or SUBMITTED (a new artist while ASSIGNED is notified)',
    tag,
    auth: 'account',
    interactive: true,
    body: updateJobBody,
    responses: { 200: job, 404: notFound, 409: invalidState, 422: unknownSegment },
    handler: async ({ body }, ctx) => {
      const { id, companyId: _companyId, ...changes } = body;
      return { status: 200, body: await updateRecordingJob(jobDeps(ctx), ctx.account.id, id, changes) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/job/executeJob',
    operationId: 'executeJob',
    summary: 'Assign the job to its artist (CREATED → ASSIGNED; emits job.assigned)',
    tag,
    auth: 'account',
    interactive: true,
    query: jobIdQuery,
    responses: { 200: job, 404: notFound, 409: invalidState },
    handler: async ({ query }, ctx) => ({ status: 200, body: await executeRecordingJob(jobDeps(ctx), ctx.account.id, query.id) }),
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
      409: { description: 'Not allowed from the job’s state (`invalid_state`), or the file is already a take (`file_in_use`)' },
      422: { description: 'The file was rejected (`file_rejected`), or the URL may not be fetched (`invalid_url`)' },
      503: { description: 'This deployment cannot process recordings now (`media_unavailable`); or Postgres or Temporal is out of reach' },
    },
    handler: async ({ query, body }, ctx) => {
      const take = body.fileId !== undefined ? { fileId: body.fileId } : { url: body.url!, fileName: body.fileName };
      return { status: 201, body: await submitJobRecording(submitDeps(ctx), ctx.account.id, query.id, take) };
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
    handler: async ({ query }, ctx) => ({ status: 200, body: await selectJobRecording(jobDeps(ctx), ctx.account.id, query.file_id) }),
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
    handler: async ({ query }, ctx) => ({ status: 200, body: await acceptRecordingJob(jobDeps(ctx), ctx.account.id, query.id) }),
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
    handler: async ({ query }, ctx) => ({ status: 200, body: await cancelRecordingJob(jobDeps(ctx), ctx.account.id, query.id) }),
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
    handler: async ({ query }, { em, account }) => ({ status: 200, body: await getRecordingJob(em, account.id, query.id) }),
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
    handler: async ({ query }, { em, account }) => ({ status: 200, body: await listRecordingJobs(em, account.id, query) }),
  }),
];
