import { WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { ExperienceRun } from '../../persistence/entities/experience-run.ts';
import { cancelRun } from '../../../workflows/experience-run.contract.ts';
import { experienceRunHandle } from '../../temporal/starters/experience-run.ts';
import { markRunCancelledBeforeStart, type RunDeps } from './cancel-experience-run.ts';

const pageSize = 200;

/**
 * One page of an archive's sweep: asks every live run after `afterRunId` (in id order) to cancel, without waiting for
 * each to finish ending. Answers how many it asked and the last id, or null when no live run is left after it.
 */
export async function cancelLiveRuns(
  deps: RunDeps & { heartbeat?: () => void },
  input: { experienceId: string; afterRunId: string | null },
): Promise<{ cancelled: number; lastRunId: string | null }> {
  const runs = await deps.em.find(
    ExperienceRun,
    { experienceId: input.experienceId, status: 'running', ...(input.afterRunId ? { id: { $gt: input.afterRunId } } : {}) },
    { fields: ['id', 'workflowId'], orderBy: { id: 'asc' }, limit: pageSize },
  );
  let cancelled = 0;
  for (const run of runs) {
    try {
      await experienceRunHandle(deps.temporal, run.workflowId).startUpdate(cancelRun, { waitForStage: WorkflowUpdateStage.ACCEPTED });
      cancelled++;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        await markRunCancelledBeforeStart(deps.em, run.id);
        cancelled++;
      } else if (!(error instanceof WorkflowUpdateFailedError)) {
        // Refused by the run's validator: it has ended on its own meanwhile. Anything else is worth a retry.
        throw error;
      }
    }
    deps.heartbeat?.();
  }
  return { cancelled, lastRunId: runs.length < pageSize ? null : runs.at(-1)!.id };
}
