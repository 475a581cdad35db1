import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { findTemporalCli } from '../../src/temporal/cli-path.ts';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { inject } from 'vitest';

export const historiesDir = fileURLToPath(new URL('../fixtures/histories', import.meta.url));

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
 * With RECORD_HISTORIES=1, keeps a finished run's history as a fixture for the replay tests. The Temporal CLI writes
 * it, in the same JSON form the Temporal UI downloads.
 */
export async function recordHistoryIfAsked(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const cli = findTemporalCli();
  if (!cli) throw new Error('RECORD_HISTORIES needs the Temporal CLI on PATH or TEMPORAL_CLI_PATH');
  const args = ['workflow', 'show', '--workflow-id', handle.workflowId, '--address', inject('temporalAddress'), '--namespace', inject('namespace'), '--output', 'json'];
  const { stdout } = await promisify(execFile)(cli, args, { maxBuffer: 64 * 1024 * 1024 });
  await writeFile(join(historiesDir, `${name}.json`), stdout);
}

export async function loadHistories(): Promise<Array<{ name: string; history: unknown }>> {
  const files = (await readdir(historiesDir)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({ name: file.replace(/\.json$/, ''), history: JSON.parse(await readFile(join(historiesDir, file), 'utf8')) })),
  );
}
