import type { Client } from '@temporalio/client';
import protos from '@temporalio/proto';
import pMap from 'p-map';

const { EventType } = protos.temporal.api.enums.v1;

/** What Temporal recorded for some work: runs, workflow tasks, activity tasks, local activities, history events. */
export interface TemporalCost {
  runs: number;
  workflowTasks: number;
  activities: number;
  localActivities: number;
  historyEvents: number;
}

/** The marker a local activity's result is recorded under (patches have markers of their own). */
const localActivityMarker = 'core_local_activity';

const emptyCost = (): TemporalCost => ({ runs: 0, workflowTasks: 0, activities: 0, localActivities: 0, historyEvents: 0 });

/**
 * The history events of the task queue's runs written at or after `sinceMs`, by workflow type: every run started or
 * closed since then is read whole (its events before `sinceMs` are not counted), so a phase's cost is taken once its
 * runs have closed. A run that started earlier and is still open is not read: the waiting runs of bench:flows, which
 * the phases must leave alone, would be 10,000 reads or more. Completed workflow tasks, scheduled activities and local
 * activities (their markers; a patch's marker is not one) are counted apart.
 */
export async function temporalCostSince(client: Client, taskQueue: string, sinceMs: number): Promise<Map<string, TemporalCost>> {
  const since = new Date(sinceMs).toISOString();
  const runs: Array<{ workflowId: string; runId: string; type: string }> = [];
  for await (const run of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND (StartTime >= '${since}' OR CloseTime >= '${since}')` })) {
    runs.push({ workflowId: run.workflowId, runId: run.runId, type: run.type });
  }
  const byType = new Map<string, TemporalCost>();
  await pMap(
    runs,
    async (run) => {
      const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      const cost = byType.get(run.type) ?? emptyCost();
      byType.set(run.type, cost);
      cost.runs += 1;
      for (const event of history.events ?? []) {
        const seconds = Number(event.eventTime?.seconds ?? 0);
        if (seconds * 1000 + (event.eventTime?.nanos ?? 0) / 1e6 < sinceMs) continue;
        cost.historyEvents += 1;
        if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) cost.workflowTasks += 1;
        else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) cost.activities += 1;
        else if (event.markerRecordedEventAttributes?.markerName === localActivityMarker) cost.localActivities += 1;
      }
    },
    { concurrency: 16 },
  );
  return byType;
}

/** The sum over workflow types. */
export function totalCost(byType: Map<string, TemporalCost>): TemporalCost {
  const total = emptyCost();
  for (const cost of byType.values()) for (const key of Object.keys(total) as Array<keyof TemporalCost>) total[key] += cost[key];
  return total;
}
