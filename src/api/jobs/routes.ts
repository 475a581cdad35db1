import { createRecordingJob } from '../../domain/jobs/job-workflow-client.ts';
import {
  acceptRecordingJob,
  cancelRecordingJob,
  executeRecordingJob,
  selectJobRecording,
  submitJobRecording,
  updateRecordingJob,
} from '../../domain/jobs/job-actions.ts';
import { getRecordingJob, listRecordingJobs } from '../../domain/jobs/read-jobs.ts';
import { defineRoute } from '../../http/route.ts';
import { jobDeps } from '../request-deps.ts';
import {
  createJobBody,
  fileIdQuery,
  jobIdQuery,
  jobPage,
  jobSchema,
  listJobsQuery,
  recordingBody,
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
    summary: 'The artist submits a recording (ASSIGNED or SUBMITTED → SUBMITTED; emits job.recording_submitted)',
    tag,
    auth: 'account',
    interactive: true,
    query: jobIdQuery,
    body: recordingBody,
    responses: { 201: { description: 'The stored recording and the job', schema: submittedRecordingSchema }, 404: notFound, 409: invalidState },
    handler: async ({ query, body }, ctx) => ({ status: 201, body: await submitJobRecording(jobDeps(ctx), ctx.account.id, query.id, body) }),
  }),
  defineRoute({
    method: 'post',
    path: '/richPush/select',
    aliases: ['/job/select'],
    operationId: 'selectRecording',
    summary: 'Select one of the job’s recordings (SUBMITTED or SELECTED → SELECTED)',
    tag,
    auth: 'account',
    interactive: true,
    query: fileIdQuery,
    responses: { 200: job, 404: notFound, 409: invalidState },
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
