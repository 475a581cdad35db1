import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { FloorActivities } from './floor-activities.ts';

const { floorStep } = proxyActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

/** The Temporal floor: the least a durable unit of work can cost, one run with one activity. */
export async function floorRun(unit: number): Promise<number> {
  return floorStep(unit);
}

/** Events handed to a waiting `floorWaiter`, all in one signal. */
export const floorHandOver = defineSignal<[string[]]>('floorHandOver');

/**
 * The hand-over floor: the least it can cost to move a live run that waits for events. The run waits for one signal
 * and ends: one signal, one workflow task (a replay first when the worker's cache no longer holds the run) and the
 * completion, with no activity, no database and no delivery.
 */
export async function floorWaiter(): Promise<number> {
  let received = 0;
  setHandler(floorHandOver, (events) => {
    received += events.length;
  });
  await condition(() => received > 0);
  return received;
}
