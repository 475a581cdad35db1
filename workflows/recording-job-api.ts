import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { JobChanges, JobFields, JobView, RecordingInput } from '../src/domain/jobs/job-view.ts';

/**
 * The messages a recording job workflow answers. The API imports these definitions to call it, so this file
 * holds nothing but them.
 */
export interface CreateJobArgs extends JobFields {
  notificationId: string;
}

export const createJob = defineUpdate<JobView, [CreateJobArgs]>('create');
export const updateJob = defineUpdate<JobView, [JobChanges]>('update');
export const executeJob = defineUpdate<JobView, []>('execute');
export const submitRecording = defineUpdate<{ job: JobView; fileId: string }, [RecordingInput]>('submitRecording');
export const selectRecording = defineUpdate<JobView, [{ fileId: string }]>('select');
export const acceptJob = defineUpdate<JobView, []>('accept');
export const cancelJob = defineUpdate<JobView, []>('cancel');
export const jobState = defineQuery<JobView | null>('state');
