import type { EntityManager } from '@mikro-orm/postgresql';
import { Job } from '../../persistence/entities/job.ts';
import { notFound } from '../errors.ts';

export async function findOwnedJob(em: EntityManager, accountId: string, jobId: string): Promise<Job> {
  const job = await em.findOne(Job, { id: jobId, accountId });
  if (!job) throw notFound('Job');
  return job;
}
