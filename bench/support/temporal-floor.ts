import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { floorActivities } from '../floor/floor-activities.ts';
import { ascending, percentile, runBounded } from './stats.ts';

/** The floor's one workflow, for its in-process worker here and its worker process (bench/worker.ts). */
export const floorWorkflowsPath = fileURLToPath(new URL('../floor/floor-workflow.ts', import.meta.url));

export interface FloorFigures {
  /** Runs completed per second over the whole measurement (first start → last completion). */
  perSecond: number;
  units: number;
  concurrency: number;
  wallMs: number;
  /** Start → result of one run, ms. */
  p50: number;
  p99: number;
}

export interface FloorOptions {
  address: string;
  namespace: string;
  units: number;
  concurrency: number;
  /** Runs before measuring, not counted (default 10). */
  warmup?: number;
}

/**
 * The Temporal floor of a bench (issue 11): one workflow with one activity per unit, on the same server as the
 * service, with its own worker (default options, like the service's) on a task queue of its own, `concurrency`
 * runs in flight. A bench divides its service figure by `perSecond` to say how close it gets to what Temporal
 * itself allows on the same machine in the same run.
 */
export async function measureTemporalFloor(options: FloorOptions): Promise<FloorFigures> {
  const taskQueue = `floor-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: options.namespace,
    taskQueue,
    workflowsPath: floorWorkflowsPath,
    activities: floorActivities,
  });
  const connection = await Connection.connect({ address: options.address });
  const client = new Client({ connection, namespace: options.namespace });
  const running = worker.run();
  try {
    const execute = (unit: number) => client.workflow.execute('floorRun', { taskQueue, workflowId: `floor-${taskQueue}-${unit}`, args: [unit] });
    const warmup = options.warmup ?? 10;
    await runBounded(warmup, options.concurrency, async (unit) => void (await execute(-1 - unit)));
    const latencies: number[] = [];
    const started = performance.now();
    await runBounded(options.units, options.concurrency, async (unit) => {
      const sent = performance.now();
      await execute(unit);
      latencies.push(performance.now() - sent);
    });
    const wallMs = performance.now() - started;
    const sorted = ascending(latencies);
    return {
      perSecond: options.units / (wallMs / 1000),
      units: options.units,
      concurrency: options.concurrency,
      wallMs,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
    };
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
  }
}
