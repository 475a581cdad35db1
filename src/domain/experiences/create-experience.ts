import type { EntityManager } from '@mikro-orm/postgresql';
import { Experience } from '../../persistence/entities/experience.ts';
import { newId } from '../../security/ids.ts';
import type { ExperienceDefinition } from './definition-schema.ts';

/** A new draft. Its name is the definition's, unless one is given; the two are kept the same from then on. */
export async function createExperience(em: EntityManager, accountId: string, input: { name?: string | undefined; definition: ExperienceDefinition }): Promise<Experience> {
  const name = input.name ?? input.definition.name;
  const experience = em.create(Experience, {
    id: newId('exp_'),
    accountId,
    name,
    status: 'draft',
    definition: { ...input.definition, name },
    version: null,
    triggerEventType: null,
    publishedAt: null,
  });
  await em.flush();
  return experience;
}
