import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { Job } from '../../persistence/entities/job.ts';
import type { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';
import { findOwnedJob } from './find-owned-job.ts';
import { loadJobView, loadTakes, toJobView } from './job-records.ts';
import type { JobStatus } from '../../sandbox-safe/job-transitions.ts';
import type { JobView } from './job-view.ts';

export async function getRecordingJob(em: EntityManager, accountId: string, jobId: string): Promise<JobView> {
  return loadJobView(em, await findOwnedJob(em, accountId, jobId));
}

export async function listRecordingJobs(
  em: EntityManager,
  accountId: string,
  filter: { appId?: string | undefined; status?: JobStatus | undefined; limit: number; cursor?: string | undefined },
): Promise<Page<JobView>> {
  const where: FilterQuery<Job> = { accountId };
  if (filter.appId) where.appId = filter.appId;
  if (filter.status) where.status = filter.status;
  const page = await paginate(em, Job, where, filter);
  const files = await loadTakes(em, page.items.map((job) => job.id));
  return {
    items: page.items.map((job) => toJobView(job, files.filter((file) => file.jobId === job.id))),
    nextCursor: page.nextCursor,
  };
}

/** A job's takes, oldest first: the files submitted to it, whatever their status. */
export async function listJobTakes(em: EntityManager, accountId: string, jobId: string): Promise<RecordingFile[]> {
  const job = await findOwnedJob(em, accountId, jobId);
  return loadTakes(em, [job.id]);
}
