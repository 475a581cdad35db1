import type { EntityManager } from '@mikro-orm/postgresql';
import { Job } from '../../persistence/entities/job.ts';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { jobWorkflowId } from '../../../workflows/recording-job.contract.ts';
import type { JobView, RecordingView } from './job-view.ts';

export const toRecordingView = (file: RecordingFile): RecordingView => ({
  fileId: file.id,
  jobId: file.jobId!,
  status: file.status,
  reason: file.reason ?? null,
  detail: file.detail ?? null,
  url: file.url,
  fileName: file.fileName ?? null,
  contentType: file.contentType ?? null,
  durationMs: file.durationMs ?? null,
  sizeBytes: file.sizeBytes ?? null,
  createdAt: file.createdAt.toISOString(),
});

export function toJobView(job: Job, files: RecordingFile[]): JobView {
  return {
    id: job.id,
    appId: job.appId,
    notificationId: job.notificationId,
    title: job.title,
    description: job.description ?? null,
    richPushLevel: job.richPushLevel,
    dueDate: job.dueDate ?? null,
    artistDueDate: job.artistDueDate ?? null,
    artist: job.artist ?? null,
    favourite: job.favourite,
    script: job.script ?? null,
    jobType: job.jobType,
    isStock: job.isStock,
    filterId: job.filterId ?? null,
    status: job.status,
    selectedFileId: job.selectedFileId ?? null,
    recordings: files.map(toRecordingView),
    workflowId: jobWorkflowId(job.id),
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}

/** The takes of these jobs (files submitted to them), oldest first. */
export function loadTakes(em: EntityManager, jobIds: string[]): Promise<RecordingFile[]> {
  if (jobIds.length === 0) return Promise.resolve([]);
  return em.find(RecordingFile, { jobId: { $in: jobIds }, submissionId: { $ne: null } }, { orderBy: { submittedAt: 'asc', id: 'asc' } });
}

/** The view of one job with its recordings, oldest recording first. */
export async function loadJobView(em: EntityManager, job: Job): Promise<JobView> {
  return toJobView(job, await loadTakes(em, [job.id]));
}
