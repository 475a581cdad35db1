import { continueAsNew, proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { CancelExperienceRunsInput } from './cancel-experience-runs.contract.ts';

const { cancelLiveExperienceRuns } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute' },
});

/** Ends every live run of an archived experience, one page of runs per activity, in run id order. */
export async function cancelExperienceRuns(input: CancelExperienceRunsInput): Promise<{ cancelled: number }> {
  let afterRunId = input.carried?.afterRunId ?? null;
  let cancelled = input.carried?.cancelled ?? 0;
  for (;;) {
    const page = await cancelLiveExperienceRuns({ experienceId: input.experienceId, afterRunId });
    cancelled += page.cancelled;
    setCurrentDetails(`Cancelled ${cancelled} live run(s) of experience ${input.experienceId} so far.`);
    if (page.lastRunId === null) return { cancelled };
    afterRunId = page.lastRunId;
    if (workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof cancelExperienceRuns>({ ...input, version: 1, carried: { version: 1, afterRunId, cancelled } });
    }
  }
}
