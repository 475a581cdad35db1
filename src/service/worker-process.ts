import type { Orm } from '../persistence/orm.ts';
import { createTemporalClients } from '../temporal/client.ts';
import { bundleWorkflows } from '../temporal/workflow-bundle.ts';
import { startWorker, type RunningWorker } from '../temporal/worker.ts';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { createActivityDeps, interactiveTaskQueueOf, type ServiceSettings } from './compose.ts';

export interface ServiceWorker {
  /** The task queues polled: the bulk one first, then the interactive one when it is a queue of its own. */
  taskQueues: string[];
  /** Settles when every worker has stopped; rejects as soon as one fails. */
  finished: Promise<void>;
  /** Drains the workers and releases what they opened. */
  stop(): Promise<void>;
}

/**
 * The service's workers, in one process with everything their activities need: one on the bulk task queue
 * (deliveries, fan-outs, ingest, experiences, A/B tests, and job runs started before the interactive queue existed),
 * and one on the interactive queue (recording jobs), with slots and a workflow thread of its own so that a backlog
 * of bulk work never holds up a job step. Both register every workflow type and activity. When the two queue names
 * are the same, one worker polls it.
 */
export async function startServiceWorker(
  settings: ServiceSettings,
  orm: Orm,
  options: { workflowBundle?: WorkflowBundleOption; outboundCa?: string } = {},
): Promise<ServiceWorker> {
  const deps = createActivityDeps(settings, orm, createTemporalClients(settings.temporalAddress, settings.namespace), options.outboundCa);
  const workflowBundle = options.workflowBundle ?? (await bundleWorkflows(settings.logger));
  const base = { address: settings.temporalAddress, namespace: settings.namespace, workflowBundle, deps };
  const taskQueues = [...new Set([settings.taskQueue, interactiveTaskQueueOf(settings)])];
  const workers: RunningWorker[] = [];
  const stopWorkers = async () => {
    await Promise.all(workers.map((worker) => worker.shutdown()));
  };
  try {
    for (const taskQueue of taskQueues) workers.push(await startWorker({ ...base, taskQueue }));
  } catch (error) {
    await stopWorkers().catch(() => undefined);
    await deps.close();
    throw error;
  }
  return {
    taskQueues,
    finished: Promise.all(workers.map((worker) => worker.finished)).then(() => undefined),
    async stop() {
      await stopWorkers();
      await deps.close();
    },
  };
}
