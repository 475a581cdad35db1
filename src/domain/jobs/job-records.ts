import type { EntityManager } from '@mikro-orm/postgresql';
import { Job } from '../../persistence/entities/job.ts';
import { JobFile } from '../../persistence/entities/job-file.ts';
import { jobWorkflowId } from '../../../workflows/recording-job.contract.ts';
import type { JobView, RecordingView } from './job-view.ts';

export const toRecordingView = (file: JobFile): RecordingView => ({
  fileId: file.id,
  jobId: file.jobId,
  url: file.url,
  fileName: file.fileName ?? null,
  mimeType: file.mimeType ?? null,
  durationMs: file.durationMs ?? null,
  sizeBytes: file.sizeBytes ?? null,
  createdAt: file.createdAt.toISOString(),
});

export function toJobView(job: Job, files: JobFile[]): JobView {
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

/** The view of one job with its recordings, oldest recording first. */
export async function loadJobView(em: EntityManager, job: Job): Promise<JobView> {
  const files = await em.find(JobFile, { jobId: job.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return toJobView(job, files);
}
