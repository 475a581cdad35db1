import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { floorActivities } from '../floor/floor-activities.ts';
import { floorHandOver, floorRun, floorWaiter } from '../floor/floor-workflow.ts';
import { ascending, percentile, runBounded } from './stats.ts';

/** The floor's workflows, for its in-process worker here and its worker process (bench/worker.ts). */
export const floorWorkflowsPath = fileURLToPath(new URL('../floor/floor-workflow.ts', import.meta.url));

/** What the hand-over floor hands each waiting run in its one signal: a shopper's two events in bench:flows. */
export const handOverEventTypes = ['checkout', 'purchase'];

export interface FloorFigures {
  /** Units completed per second over the whole measurement (first start or signal → last completion). */
  perSecond: number;
  units: number;
  concurrency: number;
  wallMs: number;
  /** Start (or signal) → result of one run, ms. */
  p50: number;
  p99: number;
  /** CPU ms per unit of what `cpuSeconds` counts, over the timed units only; NaN without it. */
  cpuMsPerUnit: number;
}

export interface FloorOptions {
  address: string;
  namespace: string;
  units: number;
  concurrency: number;
  /** Runs before measuring, not counted (default 10). */
  warmup?: number;
  /**
   * CPU seconds so far of the processes the caller counts (the dev server, the floor's worker), read just before and
   * after the timed units: CPU per unit holds when the machine is busy, where units per second do not.
   */
  cpuSeconds?: () => number;
}

/**
 * The Temporal floor of a bench (issue 11): one workflow with one activity per unit, on the same server as the
 * service, with its own worker (default options, like the service's) on a task queue of its own, `concurrency`
 * runs in flight. A bench divides its service figure by `perSecond` to say how close it gets to what Temporal
 * itself allows on the same machine in the same run.
 */
export function measureTemporalFloor(options: FloorOptions): Promise<FloorFigures> {
  return withFloorWorker(options, {}, async (client, taskQueue) => {
    const execute = (unit: number) => client.workflow.execute(floorRun, { taskQueue, workflowId: `floor-${taskQueue}-${unit}`, args: [unit] });
    const warmup = options.warmup ?? 10;
    await runBounded(warmup, options.concurrency, async (unit) => void (await execute(-1 - unit)));
    return timeUnits(options, (unit) => execute(unit));
  });
}

/**
 * The hand-over floor (issue 28): `units` `floorWaiter` runs are started and left waiting, then each is handed two
 * events in one signal and ends; runs completed per second from the first signal to the last completion. The worker
 * keeps `cachedWorkflows` runs in its sticky cache, as the service's does, so with more waiting runs than that a
 * hand-over mostly replays its run first. What any design pays per advance when each live run is a workflow of its
 * own that an event moves, before it does any work.
 */
export function measureHandOverFloor(options: FloorOptions & { cachedWorkflows: number }): Promise<FloorFigures> {
  return withFloorWorker(options, { maxCachedWorkflows: options.cachedWorkflows }, async (client, taskQueue) => {
    const handles = new Array<Awaited<ReturnType<typeof client.workflow.start<typeof floorWaiter>>>>(options.units);
    await runBounded(options.units, options.concurrency, async (unit) => {
      handles[unit] = await client.workflow.start(floorWaiter, { taskQueue, workflowId: `handover-${taskQueue}-${unit}` });
    });
    // Every run has taken its first task and waits: a signal to a run whose first task is still pending would be
    // carried in that task for free.
    await runBounded(options.units, options.concurrency, async (unit) => {
      while ((await handles[unit]!.describe()).raw.pendingWorkflowTask) await delay(100);
    });
    return timeUnits(options, async (unit) => {
      await handles[unit]!.signal(floorHandOver, handOverEventTypes);
      await handles[unit]!.result();
    });
  });
}

/** Runs `units` units, `concurrency` at a time, timing each and the whole. */
async function timeUnits(options: FloorOptions, unit: (index: number) => Promise<unknown>): Promise<FloorFigures> {
  const latencies: number[] = [];
  const cpuBefore = options.cpuSeconds?.() ?? Number.NaN;
  const started = performance.now();
  await runBounded(options.units, options.concurrency, async (index) => {
    const sent = performance.now();
    await unit(index);
    latencies.push(performance.now() - sent);
  });
  const wallMs = performance.now() - started;
  const cpuMsPerUnit = (((options.cpuSeconds?.() ?? Number.NaN) - cpuBefore) * 1000) / options.units;
  const sorted = ascending(latencies);
  return {
    perSecond: options.units / (wallMs / 1000),
    units: options.units,
    concurrency: options.concurrency,
    wallMs,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuMsPerUnit,
  };
}

/** A bare SDK worker with the floor's workflows and activity on a task queue of its own, and a client, for `measure`. */
async function withFloorWorker<T>(
  options: Pick<FloorOptions, 'address' | 'namespace'>,
  workerOptions: { maxCachedWorkflows?: number },
  measure: (client: Client, taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = `floor-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: options.namespace,
    taskQueue,
    workflowsPath: floorWorkflowsPath,
    activities: floorActivities,
    ...workerOptions,
  });
  const connection = await Connection.connect({ address: options.address });
  const client = new Client({ connection, namespace: options.namespace });
  const running = worker.run();
  try {
    return await measure(client, taskQueue);
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
  }
}
