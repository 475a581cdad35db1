import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Experience, type ExperienceStatus } from '../../persistence/entities/experience.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { startCancelExperienceRuns } from '../../temporal/starters/cancel-experience-runs.ts';
import { DomainError } from '../errors.ts';
import { findOwnedExperience } from './find-owned-experience.ts';

/** Pause (active → paused) stops new entries; live runs go on. Resume (paused → active) lets them in again. */
export async function changeExperienceStatus(em: EntityManager, accountId: string, experienceId: string, action: 'pause' | 'resume'): Promise<Experience> {
  const [from, to]: [ExperienceStatus, ExperienceStatus] = action === 'pause' ? ['active', 'paused'] : ['paused', 'active'];
  const experience = await findOwnedExperience(em, accountId, experienceId);
  if (experience.status !== from) throw new DomainError('invalid_state', `The experience is ${experience.status}; ${action} requires ${from}`);
  experience.status = to;
  await em.flush();
  return experience;
}

/**
 * Archive: no new entries, ever, and every live run is cancelled (reason `cancelled`) by a run of its own, which
 * this starts after the commit. The row lock waits for routing in flight, so that run sees every run routing made.
 * Archiving again answers the same and makes sure the cancelling run exists.
 */
export async function archiveExperience(deps: { em: EntityManager; temporal: TemporalAccess }, accountId: string, experienceId: string): Promise<Experience> {
  await findOwnedExperience(deps.em, accountId, experienceId);
  const experience = await deps.em.transactional(async (tx) => {
    const locked = await tx.findOneOrFail(Experience, { id: experienceId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    locked.status = 'archived';
    locked.triggerEventType = null;
    return locked;
  });
  await startCancelExperienceRuns(deps.temporal, { version: 1, accountId, experienceId });
  return experience;
}
