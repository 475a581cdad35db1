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
  /**
   * The client shares the NativeConnection of a worker of this process that polls `taskQueue`, so a run started on
   * that queue may be started eagerly: the server hands its first workflow task back with the start, to this
   * process's worker, instead of through the queue (docs/adr/0063-runs-the-worker-starts-start-eagerly.md). Unset: started the usual way.
   */
  eagerStart?: boolean | undefined;
}
