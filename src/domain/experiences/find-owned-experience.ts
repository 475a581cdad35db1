import type { EntityManager } from '@mikro-orm/postgresql';
import { Experience } from '../../persistence/entities/experience.ts';
import { ExperienceRun } from '../../persistence/entities/experience-run.ts';
import { notFound } from '../errors.ts';

/** The account's experience, or 404 (another account's looks the same as none). */
export async function findOwnedExperience(em: EntityManager, accountId: string, experienceId: string): Promise<Experience> {
  const experience = await em.findOne(Experience, { id: experienceId, accountId });
  if (!experience) throw notFound('Experience');
  return experience;
}

/** A run of the account's experience, or 404. */
export async function findOwnedRun(em: EntityManager, accountId: string, experienceId: string, runId: string): Promise<ExperienceRun> {
  const run = await em.findOne(ExperienceRun, { id: runId, experienceId, accountId });
  if (!run) throw notFound('Run');
  return run;
}
