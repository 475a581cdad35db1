import { proxyActivities } from '@temporalio/workflow';
import type { FloorActivities } from './floor-activities.ts';

const { floorStep } = proxyActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

/** The Temporal floor: the least a durable unit of work can cost, one run with one activity. */
export async function floorRun(unit: number): Promise<number> {
  return floorStep(unit);
}
