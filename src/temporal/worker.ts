import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities/index.ts';
import type { Logger } from '../logger.ts';
import { workerDeploymentOptionsOf, type DeploymentVersion } from './worker-versioning.ts';

export interface WorkerOptions {
  /** The process's connection, shared with its client (eager starts); closed by whoever opened it. */
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  workflowBundle: WorkflowBundleOption;
  deps: ActivityDeps;
  /** Polls as this version of a worker deployment; unversioned when unset. */
  deployment?: DeploymentVersion | undefined;
}

export interface RunningWorker {
  worker: Worker;
  /** Settles when the worker has stopped. */
  finished: Promise<void>;
  shutdown(): Promise<void>;
}

export interface TemporalRuntimeOptions {
  /**
   * `host:port` of the SDK's own Prometheus exporter (worker task slots, polls, task latencies), which the SDK's
   * native core serves at /metrics on a listener of its own. None when unset.
   */
  prometheusBindAddress?: string | undefined;
}

/**
 * Installs the process's Temporal runtime, once, before any worker or native connection exists: the SDK's own log
 * lines go through pino (so every line the process writes is structured JSON), and its metrics, when asked, to a
 * Prometheus exporter. Counters end in `_total` and durations are in seconds, as Prometheus names them.
 */
export function installTemporalRuntime(logger: Logger, options: TemporalRuntimeOptions = {}): void {
  const toPino: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  const temporalLogger = logger.child({ component: 'temporal-sdk' });
  const bindAddress = options.prometheusBindAddress;
  Runtime.install({
    logger: new DefaultLogger('INFO', (entry) => temporalLogger[toPino[entry.level]](entry.meta ?? {}, entry.message)),
    ...(bindAddress === undefined
      ? {}
      : { telemetryOptions: { metrics: { prometheus: { bindAddress, countersTotalSuffix: true, useSecondsForDurations: true } } } }),
  });
  if (bindAddress !== undefined) logger.info({ url: `http://${bindAddress}/metrics` }, 'Temporal SDK metrics listening');
}

/**
 * Runs each worker keeps in memory between their workflow tasks (the sticky cache); a run that is not kept is replayed
 * from its history when its next task comes, which for the service's short histories costs a few ms. The SDK would
 * size the cache from the heap (about 220 runs for the worker's 512 MiB), for each worker of the process, so that
 * what the cache holds grows with the heap, not with what the heap must also carry under load
 * (docs/adr/0060-the-worker-runs-with-a-sized-heap.md).
 */
export const cachedWorkflowsPerWorker = 100;

/**
 * On shutdown, activities in flight get this long to finish before they are cancelled (and later retried). A
 * deployment gives the process more than this to stop (the Helm chart's terminationGracePeriodSeconds).
 */
export const workerShutdownGraceSeconds = 10;

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: options.workflowBundle,
    activities: createActivities(options.deps),
    shutdownGraceTime: `${workerShutdownGraceSeconds} seconds`,
    maxCachedWorkflows: cachedWorkflowsPerWorker,
    workerDeploymentOptions: workerDeploymentOptionsOf(options.deployment),
  });
  const finished = worker.run();
  return {
    worker,
    finished,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await finished;
    },
  };
}
