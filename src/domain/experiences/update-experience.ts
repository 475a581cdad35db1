import type { EntityManager } from '@mikro-orm/postgresql';
import type { Experience } from '../../persistence/entities/experience.ts';
import { DomainError } from '../errors.ts';
import type { ExperienceDefinition } from './definition-schema.ts';
import { findOwnedExperience } from './find-owned-experience.ts';

/** Changes the name or the latest definition; live runs and the published version are untouched until a publish. */
export async function updateExperience(
  em: EntityManager,
  accountId: string,
  experienceId: string,
  changes: { name?: string | undefined; definition?: ExperienceDefinition | undefined },
): Promise<Experience> {
  const experience = await findOwnedExperience(em, accountId, experienceId);
  if (experience.status === 'archived') throw new DomainError('invalid_state', 'The experience is archived; it accepts no more changes');
  const name = changes.name ?? (changes.definition ? changes.definition.name : experience.name);
  experience.name = name;
  experience.definition = { ...(changes.definition ?? experience.definition), name };
  await em.flush();
  return experience;
}
