import type { EntityManager } from '@mikro-orm/postgresql';
import { ExperienceRun } from '../../persistence/entities/experience-run.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { withUpdateErrors } from '../../temporal/update-errors.ts';
import { cancelRun } from '../../../workflows/experience-run.contract.ts';
import { experienceRunHandle } from '../../temporal/starters/experience-run.ts';
import { DomainError } from '../errors.ts';
import { findOwnedRun } from './find-owned-experience.ts';

export interface RunDeps {
  em: EntityManager;
  temporal: TemporalAccess;
}

/**
 * A run whose workflow has not started yet (routing decided it, the start is still to come) is cancelled in its row;
 * its workflow, once started, finds the row cancelled and ends at once, announcing the end.
 */
export async function markRunCancelledBeforeStart(em: EntityManager, runId: string): Promise<void> {
  await em.nativeUpdate(
    ExperienceRun,
    { id: runId, status: 'running' },
    { status: 'cancelled', endReason: 'cancelled', endDetail: 'cancelled before the run started', endedAt: new Date() },
  );
}

/** Ends one live run (reason `cancelled`) through its `cancel` update, and answers the run as it ended. */
export async function cancelExperienceRun(deps: RunDeps, accountId: string, experienceId: string, runId: string): Promise<ExperienceRun> {
  const run = await findOwnedRun(deps.em, accountId, experienceId, runId);
  if (run.status !== 'running') throw new DomainError('invalid_state', `The run has ended (${run.status})`);
  await withUpdateErrors(
    async () => {
      await experienceRunHandle(deps.temporal, run.workflowId).executeUpdate(cancelRun);
    },
    () => markRunCancelledBeforeStart(deps.em, run.id),
  );
  return deps.em.fork().findOneOrFail(ExperienceRun, { id: run.id });
}
