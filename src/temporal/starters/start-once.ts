import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';

/**
 * Runs a start (or signal-with-start) whose workflow id makes a second run impossible: true when this call started
 * the run, false when the id is taken already (another caller, an earlier try, or a run that has ended under
 * REJECT_DUPLICATE).
 */
export async function startOnce(start: () => Promise<unknown>): Promise<boolean> {
  try {
    await start();
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}
