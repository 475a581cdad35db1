import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Experience, type ExperienceStatus } from '../../persistence/entities/experience.ts';
import { ExperienceRun, type ExperienceRunStatus } from '../../persistence/entities/experience-run.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';
import { findOwnedExperience } from './find-owned-experience.ts';

interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export function listExperiences(em: EntityManager, accountId: string, filter: PageRequest & { status?: ExperienceStatus | undefined }): Promise<Page<Experience>> {
  const where: FilterQuery<Experience> = { accountId };
  if (filter.status) where.status = filter.status;
  return paginate(em, Experience, where, filter);
}

/** The runs of one experience, newest first. */
export async function listExperienceRuns(
  em: EntityManager,
  accountId: string,
  experienceId: string,
  filter: PageRequest & { status?: ExperienceRunStatus | undefined; clientUserId?: string | undefined },
): Promise<Page<ExperienceRun>> {
  await findOwnedExperience(em, accountId, experienceId);
  const where: FilterQuery<ExperienceRun> = { experienceId };
  if (filter.status) where.status = filter.status;
  if (filter.clientUserId) where.clientUserId = filter.clientUserId;
  return paginate(em, ExperienceRun, where, filter);
}
