import type { Orm } from '../persistence/orm.ts';
import { createTemporalClients } from '../temporal/client.ts';
import { bundleWorkflows } from '../temporal/workflow-bundle.ts';
import { startWorker, type RunningWorker } from '../temporal/worker.ts';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { createActivityDeps, type ServiceSettings } from './compose.ts';

/** The worker with everything its activities need; `stop` drains it and releases what it opened. */
export async function startServiceWorker(
  settings: ServiceSettings,
  orm: Orm,
  options: { workflowBundle?: WorkflowBundleOption; outboundCa?: string } = {},
): Promise<RunningWorker & { stop(): Promise<void> }> {
  const deps = createActivityDeps(settings, orm, createTemporalClients(settings.temporalAddress, settings.namespace), options.outboundCa);
  const worker = await startWorker({
    address: settings.temporalAddress,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    workflowBundle: options.workflowBundle ?? (await bundleWorkflows(settings.logger)),
    deps,
  });
  return {
    ...worker,
    async stop() {
      await worker.shutdown();
      await deps.close();
    },
  };
}
