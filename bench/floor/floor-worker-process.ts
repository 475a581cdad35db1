import { NativeConnection, Worker } from '@temporalio/worker';
import { floorActivities } from './floor-activities.ts';

// The Temporal floor as a process: a bare SDK worker with the floor's workflow and activity, loaded from a prebuilt
// bundle (FLOOR_BUNDLE_PATH), on TEMPORAL_ADDRESS. bench:worker compares the service's worker process with it. It says
// it is ready with one JSON line, as the service's entry points do, and stops on SIGTERM.
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: `floor-process-${process.pid}`,
  workflowBundle: { codePath: process.env.FLOOR_BUNDLE_PATH! },
  activities: floorActivities,
});
process.once('SIGTERM', () => worker.shutdown());
const running = worker.run();
process.stdout.write(`${JSON.stringify({ msg: 'worker running' })}\n`);
await running;
await connection.close();
