import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { jobWorkflowId } from '../../workflows/recording-job.contract.ts';
import { call, newAccount } from '../support/api.ts';
import { killWorker, startApiProcess, startWorkerProcess } from '../support/instances.ts';
import { newJob } from '../support/jobs.ts';
import { temporalClient } from '../support/temporal.ts';
import { until } from '../support/wait.ts';

/**
 * A rollout with worker versioning, on the dev server: `npm run worker` of build v1, then of build v2 beside it, each
 * made current with `npm run deployment:promote`. A run keeps the build that started it; new runs take the new one.
 * Which build ran each workflow task is read from the run's own history, where the server records it.
 */
const children: ChildProcess[] = [];
const track = (child: ChildProcess) => (children.push(child), child);
let client: Client;
let closeClient = async () => {};

const taskQueue = `versions-${randomUUID()}`;
const deploymentName = `richpush-${randomUUID()}`;

/** `npm run deployment:promote` for `buildId`, to its end. */
async function promote(buildId: string): Promise<void> {
  const script = fileURLToPath(new URL('../../src/main/promote-version.ts', import.meta.url));
  const child = spawn(process.execPath, [script], {
    env: {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('namespace'),
      WORKER_DEPLOYMENT_NAME: deploymentName,
      WORKER_BUILD_ID: buildId,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`deployment:promote ${buildId} exited with ${code}:\n${output}`);
}

const startVersionedWorker = (buildId: string) =>
  startWorkerProcess(taskQueue, { WORKER_DEPLOYMENT_NAME: deploymentName, WORKER_BUILD_ID: buildId }).then(track);

/** The builds that completed the run's workflow tasks, in order, as its history records them. */
async function buildsThatRan(jobId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(jobWorkflowId(jobId)).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const completed = event.workflowTaskCompletedEventAttributes;
    return completed ? [completed.deploymentVersion?.buildId ?? 'unversioned'] : [];
  });
}

beforeAll(async () => {
  ({ client, close: closeClient } = await temporalClient());
});

afterAll(async () => {
  for (const child of children) await killWorker(child);
  await closeClient();
});

describe('a rollout with worker versioning', () => {
  it('keeps a running run on the build that started it while new runs start on the promoted build', async () => {
    const [api, account] = await Promise.all([startApiProcess(taskQueue).then((started) => (track(started.child), started)), newAccount(), startVersionedWorker('v1')]);
    await promote('v1');
    const startedOnV1 = (await newJob(account, {}, api.url)).id;

    await startVersionedWorker('v2');
    await promote('v2');
    const startedOnV2 = (await newJob(account, {}, api.url)).id;
    // A step of the older run after the rollout: served, and by the build that started it.
    const executed = await call('POST', `/job/executeJob?id=${startedOnV1}`, { baseUrl: api.url, token: account.apiKey });
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);

    const v1Builds = await buildsThatRan(startedOnV1);
    expect(v1Builds.length).toBeGreaterThanOrEqual(2);
    expect(new Set(v1Builds)).toEqual(new Set(['v1']));
    expect(new Set(await buildsThatRan(startedOnV2))).toEqual(new Set(['v2']));
    const described = await client.workflow.getHandle(jobWorkflowId(startedOnV1)).describe();
    expect(described.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId).toBe('v1');
    // The list filter docs/operations.md gives for "which runs still need the old build".
    const stillOnV1 = `TemporalWorkerDeploymentVersion = "${deploymentName}:v1" AND ExecutionStatus = "Running"`;
    const listed = await until(`runs listed by ${stillOnV1}`, async () => {
      const ids: string[] = [];
      for await (const run of client.workflow.list({ query: stillOnV1 })) ids.push(run.workflowId);
      return ids;
    }, (ids: string[]) => ids.includes(jobWorkflowId(startedOnV1)));
    expect(listed).not.toContain(jobWorkflowId(startedOnV2));
  }, 120_000);
});
