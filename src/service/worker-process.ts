import type { WorkflowBundleOption } from '@temporalio/worker';
import { inboundEventsChannel } from '../domain/ingest/accept-inbound-event.ts';
import { createIngestRelay } from '../domain/ingest/relay-inbound-events.ts';
import { startRelayLoop, type RunningRelay } from '../outbox/relay-loop.ts';
import type { Orm } from '../persistence/orm.ts';
import { createTemporalClients } from '../temporal/client.ts';
import type { TemporalAccess } from '../temporal/temporal-access.ts';
import { bundleWorkflows } from '../temporal/workflow-bundle.ts';
import { startWorker, type RunningWorker } from '../temporal/worker.ts';
import { defaultDeliveryRelaySettings, startDeliveryRelay } from '../outbox/delivery-relay.ts';
import { createActivityDeps, ingestRelayDefaults, type ServiceSettings } from './compose.ts';

/**
 * The worker with everything its activities need, and its two outbox relays: accepted inbound events → `ingestBatch`
 * runs, published deliveries → `deliverBatch` runs, both on this worker's task queue. `stop` stops the relays, drains
 * the worker and releases what it opened.
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
  const relays = [
    startIngestRelay(settings, orm, deps.temporal),
    startDeliveryRelay({
      databaseUrl: settings.databaseUrl,
      orm,
      temporal: deps.temporal,
      delivery: settings.delivery,
      settings: settings.deliveryRelay ?? defaultDeliveryRelaySettings,
      logger: settings.logger,
    }),
  ];
  return {
    ...worker,
    async stop() {
      await Promise.all(relays.map((relay) => relay.stop()));
      await worker.shutdown();
      await deps.close();
    },
  };
}

/**
 * The ingest relay: woken by the accepting statement's NOTIFY, polling as a fallback. INGEST_RELAY_LANES=0 runs
 * none in this worker (another process relays).
 */
export function startIngestRelay(settings: ServiceSettings, orm: Orm, temporal: TemporalAccess): RunningRelay {
  const relay = settings.ingestRelay ?? ingestRelayDefaults;
  if (relay.lanes === 0) return { wake: () => undefined, stop: async () => undefined };
  return startRelayLoop({
    name: 'ingest',
    databaseUrl: settings.databaseUrl,
    channel: inboundEventsChannel,
    relayBatch: createIngestRelay({ em: () => orm.em.fork(), temporal }, relay),
    pollIntervalMs: relay.pollIntervalMs,
    lanes: relay.lanes,
    logger: settings.logger,
  });
}
