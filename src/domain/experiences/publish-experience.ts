import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Experience } from '../../persistence/entities/experience.ts';
import { ExperienceVersion } from '../../persistence/entities/experience-version.ts';
import { DomainError, validationFailed } from '../errors.ts';
import { checkPublishable } from './check-publishable.ts';
import { findOwnedExperience } from './find-owned-experience.ts';

/**
 * Checks the latest definition and freezes it as the next version (1, 2, …); the experience becomes active. New runs
 * enter on that version; runs already live keep theirs.
 */
export async function publishExperience(em: EntityManager, accountId: string, experienceId: string): Promise<Experience> {
  const draft = await findOwnedExperience(em, accountId, experienceId);
  if (draft.status === 'archived') throw new DomainError('invalid_state', 'The experience is archived; it cannot be published');
  const problems = await checkPublishable(em, accountId, draft.definition);
  if (problems.length) throw validationFailed(problems.map((problem) => ({ ...problem, path: `definition.${problem.path}` })));
  return em.transactional(async (tx) => {
    const experience = await tx.findOneOrFail(Experience, { id: experienceId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (experience.status === 'archived') throw new DomainError('invalid_state', 'The experience is archived; it cannot be published');
    const version = (experience.version ?? 0) + 1;
    const publishedAt = new Date();
    tx.create(ExperienceVersion, { id: randomUUID(), experienceId, version, definition: experience.definition, publishedAt });
    experience.version = version;
    experience.status = 'active';
    experience.triggerEventType = experience.definition.trigger.eventType;
    experience.publishedAt = publishedAt;
    return experience;
  });
}
