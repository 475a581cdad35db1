import type { Orm } from '../persistence/orm.ts';
import { createTemporalClients } from '../temporal/client.ts';
import { bundleWorkflows } from '../temporal/workflow-bundle.ts';
import { startWorker, type RunningWorker } from '../temporal/worker.ts';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { defaultDeliveryRelaySettings, startDeliveryRelay } from '../outbox/delivery-relay.ts';
import { createActivityDeps, type ServiceSettings } from './compose.ts';

/**
 * The worker with everything its activities need, and the delivery relay that starts the runs of published
 * deliveries on its task queue; `stop` stops the relay, drains the worker and releases what it opened.
 */
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
  const relay = startDeliveryRelay({
    databaseUrl: settings.databaseUrl,
    orm,
    temporal: deps.temporal,
    delivery: settings.delivery,
    settings: settings.deliveryRelay ?? defaultDeliveryRelaySettings,
    logger: settings.logger,
  });
  return {
    ...worker,
    async stop() {
      await relay.stop();
      await worker.shutdown();
      await deps.close();
    },
  };
}
