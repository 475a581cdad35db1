import type { EntityManager } from '@mikro-orm/postgresql';
import { Job } from '../../persistence/entities/job.ts';
import { JobFile } from '../../persistence/entities/job-file.ts';
import { notFound } from '../errors.ts';

export async function findOwnedJob(em: EntityManager, accountId: string, jobId: string): Promise<Job> {
  const job = await em.findOne(Job, { id: jobId, accountId });
  if (!job) throw notFound('Job');
  return job;
}

/** A recording of one of this account's jobs, or 404. */
export async function findOwnedRecording(em: EntityManager, accountId: string, fileId: string): Promise<JobFile> {
  const file = await em.findOne(JobFile, { id: fileId, accountId });
  if (!file) throw notFound('Recording');
  return file;
}
