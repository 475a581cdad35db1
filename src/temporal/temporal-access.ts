import type { Client } from '@temporalio/client';

/**
 * What starting or messaging a run needs: a client and the task queue the service's workers poll. Workflow
 * contracts take it, so this file holds a type only and stays loadable in the workflow sandbox.
 */
export interface TemporalAccess {
  client: Client;
  taskQueue: string;
  /**
   * The queue of interactive runs (recording jobs), polled by a worker of its own so that bulk work never takes its
   * slots. Unset: `taskQueue` (a test with one worker on one queue).
   */
  interactiveTaskQueue?: string | undefined;
}
