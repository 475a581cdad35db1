import {
  experienceRunSearchAttributes,
  experienceRunWorkflowType,
  runEvents,
  type ExperienceRunInput,
  type ExperienceRunWorkflow,
  type RunEvent,
} from '../../../workflows/experience-run.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';
import { startOnce } from './start-once.ts';

const startOptions = (temporal: TemporalAccess, workflowId: string, input: ExperienceRunInput) => ({
  taskQueue: temporal.taskQueue,
  workflowId,
  // A run that has ended is never started again under its id.
  workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
  args: [input] as [ExperienceRunInput],
  typedSearchAttributes: experienceRunSearchAttributes(input),
  staticSummary: `${input.experienceName} v${input.experienceVersion} · ${input.clientUserId ? `user ${input.clientUserId}` : `anonymous (event ${input.trigger.eventId})`}`,
});

/** Starts a decided run; false when it exists already (started before, or ended). */
export function startExperienceRun(temporal: TemporalAccess, workflowId: string, input: ExperienceRunInput): Promise<boolean> {
  return startOnce(() =>
    temporal.client.workflow.start<ExperienceRunWorkflow>(experienceRunWorkflowType, {
      ...startOptions(temporal, workflowId, input),
      requestEagerStart: temporal.eagerStart === true,
    }),
  );
}

/**
 * Hands events to a live run in one signal, in order, starting the run first if its start has not happened yet (so
 * an event that follows its trigger closely is not lost). False when the run has already ended.
 */
export function deliverEventsToRun(temporal: TemporalAccess, workflowId: string, input: ExperienceRunInput, events: RunEvent[]): Promise<boolean> {
  return startOnce(() =>
    temporal.client.workflow.signalWithStart<ExperienceRunWorkflow, [RunEvent[]]>(experienceRunWorkflowType, {
      ...startOptions(temporal, workflowId, input),
      signal: runEvents,
      signalArgs: [events],
    }),
  );
}

/**
 * The run, for the cancel update and the state query. Only a run that ended in routing's first steps has no workflow
 * id, and it is never live, so a live run without one is a bug.
 */
export function experienceRunHandle(temporal: Pick<TemporalAccess, 'client'>, workflowId: string | null | undefined) {
  if (!workflowId) throw new Error('this run has no workflow: it ended when routing entered it');
  return temporal.client.workflow.getHandle<ExperienceRunWorkflow>(workflowId);
}
