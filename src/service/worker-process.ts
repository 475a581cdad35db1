import type { Client } from '@temporalio/client';
import { NativeConnection, type WorkflowBundleOption } from '@temporalio/worker';
import type { WorkerRole } from '../config.ts';
import { defaultIngestRelaySettings, startIngestRelay } from '../outbox/ingest-relay.ts';
import type { RunningRelay } from '../outbox/relay-loop.ts';
import { connectOrm, interactivePoolMax, type Orm } from '../persistence/orm.ts';
import { createWorkerTemporalClient } from '../temporal/client.ts';
import { bundleWorkflows } from '../temporal/workflow-bundle.ts';
import { startWorker, type RunningWorker } from '../temporal/worker.ts';
import { defaultDeliveryRelaySettings, startDeliveryRelay } from '../outbox/delivery-relay.ts';
import { startFileRunRecovery } from '../outbox/file-run-recovery.ts';
import { ensureRecordingRetentionSchedule } from '../temporal/starters/recording-retention.ts';
import { createActivityDeps, interactiveTaskQueueOf, type ServiceSettings } from './compose.ts';

export interface ServiceWorker {
  /** The task queues this process polls (`taskQueuesOfRole`), the bulk one first. */
  taskQueues: string[];
  /** Settles when every worker has stopped; rejects as soon as one fails. */
  finished: Promise<void>;
  /** Stops the relays, drains the workers and releases what they opened. */
  stop: () => Promise<void>;
}

/**
 * The hourly retention sweep of recording files runs on the bulk queue; each worker of it creates or updates the
 * schedule at start. A failure is logged, not fatal: the next start tries again, and files wait a little longer.
 */
async function ensureRetentionSchedule(client: Client, settings: ServiceSettings): Promise<void> {
  try {
    const outcome = await ensureRecordingRetentionSchedule(client, settings.taskQueue);
    settings.logger.debug({ outcome }, 'recording retention schedule in place');
  } catch (error) {
    settings.logger.warn({ err: error }, 'the recording retention schedule could not be created; the next worker start retries');
  }
}

/** The queues a worker process of this role polls, bulk first; one name when both queues are one. */
export function taskQueuesOfRole(role: WorkerRole, settings: Pick<ServiceSettings, 'taskQueue' | 'interactiveTaskQueue'>): string[] {
  const interactive = interactiveTaskQueueOf(settings);
  if (role === 'bulk') return [settings.taskQueue];
  if (role === 'interactive') return [interactive];
  return [...new Set([settings.taskQueue, interactive])];
}

/**
 * The service's workers, in one process with everything their activities need: one on the bulk task queue
 * (deliveries, ingest batches, experiences, A/B tests, and job runs started before the interactive queue
 * existed), and one on the interactive queue (recording jobs), with slots, a workflow thread and a Postgres pool of
 * its own so that a backlog of bulk work never holds up a job step. Both register every workflow type and activity;
 * when the two queue names are the same, one worker polls it. And the two outbox relays, both starting runs on the bulk
 * queue: accepted inbound events → `ingestBatch` runs, published deliveries → `deliverBatch` runs; the recovery of
 * file processing runs whose start was lost; and the recording retention schedule, created or updated at start.
 *
 * `role` (WORKER_ROLE) splits this across processes: `bulk` is the bulk worker and the relays, `interactive` the
 * interactive worker alone, on the process's own pool; so bulk work can run at a lower CPU priority than job steps.
 */
export async function startServiceWorker(
  settings: ServiceSettings,
  orm: Orm,
  options: { workflowBundle?: WorkflowBundleOption | undefined; outboundCa?: string; role?: WorkerRole } = {},
): Promise<ServiceWorker> {
  const role = options.role ?? 'all';
  // `npm run worker` passes the prebuilt bundle when WORKFLOW_BUNDLE_PATH names one (docs/adr/0042-workers-load-a-prebuilt-workflow-bundle.md).
  const workflowBundle = options.workflowBundle ?? (await bundleWorkflows(settings.logger));
  const taskQueues = taskQueuesOfRole(role, settings);
  // One connection for the workers and the client of their activities and relays: a run they start on the bulk
  // queue, which a worker here polls, starts eagerly (its first workflow task comes back with the start).
  const connect = async () => {
    const connection = await NativeConnection.connect({ address: settings.temporalAddress, ...settings.temporalAccess });
    const client = createWorkerTemporalClient(connection, settings.namespace);
    return { connection, client, eagerStart: taskQueues.includes(settings.taskQueue), close: () => connection.close() };
  };
  const deps = await createActivityDeps(settings, orm, connect, options.outboundCa);
  const base = { connection: deps.connected.connection, namespace: settings.namespace, workflowBundle, deployment: settings.deployment };
  const workers: RunningWorker[] = [];
  const pools: Orm[] = [];
  const relays: RunningRelay[] = [];
  const release = async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await Promise.all(workers.map((worker) => worker.shutdown()));
    await Promise.all(pools.map((pool) => pool.close()));
    await deps.close();
  };
  try {
    for (const taskQueue of taskQueues) {
      let workerDeps = deps;
      // Beside the bulk worker, the interactive one gets a pool of its own; alone in its process, it has the process's.
      if (taskQueues.length > 1 && taskQueue !== settings.taskQueue) {
        const pool = await connectOrm(settings.databaseUrl, interactivePoolMax);
        pools.push(pool);
        workerDeps = { ...deps, orm: pool };
      }
      workers.push(await startWorker({ ...base, deps: workerDeps, taskQueue }));
    }
    if (role !== 'interactive') {
      // The relays claim their rows through the pool; only their LISTEN holds a session.
      const listenDatabaseUrl = settings.listenDatabaseUrl ?? settings.databaseUrl;
      relays.push(
        startIngestRelay({
          databaseUrl: listenDatabaseUrl,
          orm,
          temporal: deps.temporal,
          settings: settings.ingestRelay ?? defaultIngestRelaySettings,
          logger: settings.logger,
        }),
        startDeliveryRelay({
          databaseUrl: listenDatabaseUrl,
          orm,
          temporal: deps.temporal,
          delivery: settings.delivery,
          settings: settings.deliveryRelay ?? defaultDeliveryRelaySettings,
          logger: settings.logger,
        }),
        startFileRunRecovery({ orm, temporal: deps.temporal, logger: settings.logger }),
      );
      await ensureRetentionSchedule(deps.temporal.client, settings);
    }
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  return {
    taskQueues,
    finished: Promise.all(workers.map((worker) => worker.finished)).then(() => undefined),
    stop: release,
  };
}
