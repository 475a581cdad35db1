import { randomUUID } from 'node:crypto';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { RunStatus, searchAttributes } from '../../src/sandbox-safe/search-attributes.ts';
import { isAbortedByTaskFailure, withUpdateErrors } from '../../src/temporal/update-errors.ts';
import { cancelRun, experienceRunWorkflowType, runState, type ExperienceRunWorkflow } from '../../workflows/experience-run.contract.ts';
import { isWorkflowTaskFailure, registerSearchAttributes, waitForHistoryEvent } from '../support/temporal.ts';
import { connectTestEnvironment } from '../support/temporal-worker.ts';
import { experienceRunInput } from '../support/experiences.ts';
import { until } from '../support/wait.ts';

/**
 * An update the server aborts because the workflow task carrying it failed on the server's side (ADR 0101). Such a
 * failure is made here for real: a namespace of its own knows every search attribute but RunStatus, so the task
 * in which a cancelled run upserts RunStatus fails (BadSearchAttributes), until RunStatus is registered.
 */
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await connectTestEnvironment();
}, 60_000);
afterAll(async () => {
  await env?.teardown();
});

/** A namespace of its own that knows every search attribute but RunStatus. */
async function namespaceWithoutRunStatus(): Promise<string> {
  const namespace = `aborted-updates-${randomUUID()}`;
  await env.connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await registerSearchAttributes(
    env.connection,
    namespace,
    searchAttributes.filter((key) => key.name !== RunStatus.name),
  );
  return namespace;
}

const noop = async () => undefined;
const stubActivities = {
  enterExperienceRun: async () => ({ status: 'running' }),
  saveExperienceRunProgress: noop,
  endExperienceRun: async () => ({ eventId: 'evt_end' }),
};

/** A run waiting a day on its first node, on a worker of a namespace without RunStatus, for `during`. */
async function withWaitingRun(during: (handle: WorkflowHandle<ExperienceRunWorkflow>, namespace: string) => Promise<void>): Promise<void> {
  const namespace = await namespaceWithoutRunStatus();
  const client = new Client({ connection: env.connection, namespace });
  const taskQueue = `aborted-update-${randomUUID()}`;
  const worker = await until('a worker on the new namespace', () =>
    Worker.create({ connection: env.nativeConnection, namespace, taskQueue, workflowBundle: { codePath: inject('workflowBundlePath') }, activities: stubActivities }).catch(() => undefined),
  );
  const day = 24 * 3600;
  const input = experienceRunInput(
    {
      name: 'Aborted update test',
      trigger: { eventType: 'signup', conditions: null },
      entry: { reentry: 'never' },
      goals: [],
      maxDurationSeconds: 30 * day,
      start: 'wait1',
      nodes: [
        { id: 'wait1', type: 'wait', seconds: day, next: 'done' },
        { id: 'done', type: 'exit' },
      ],
    },
    Date.now(),
  );
  await worker.runUntil(async () => {
    // Started without search attributes: the start would set RunStatus, which this namespace does not know.
    const handle = await client.workflow.start<ExperienceRunWorkflow>(experienceRunWorkflowType, { taskQueue, workflowId: `experience:exp_test:${input.runId}`, args: [input] });
    await until('the run to wait on wait1', () => handle.query(runState), (state) => state.currentNodeId === 'wait1');
    try {
      await during(handle, namespace);
    } finally {
      await handle.terminate().catch(noop);
    }
  });
}

const unhandled = () => Promise.reject(new Error('the run is gone'));

describe('an update the server aborted with its workflow task', () => {
  it('is answered 503 service_unavailable, with Retry-After, when every try is aborted', { timeout: 60_000 }, async () => {
    await withWaitingRun(async (handle) => {
      let tries = 0;
      const answer = await withUpdateErrors(() => {
        tries++;
        return handle.executeUpdate(cancelRun);
      }, unhandled).catch((error: unknown) => error);
      expect(answer).toBeInstanceOf(DomainError);
      expect(answer).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'Retry-After': '1' } });
      expect(tries).toBe(5);
      // Nothing of the cancel was applied: the run still waits.
      expect(await handle.query(runState)).toMatchObject({ status: 'running', currentNodeId: 'wait1' });
    });
  });

  it('is sent again, and takes effect once the server takes the task', { timeout: 60_000 }, async () => {
    await withWaitingRun(async (handle, namespace) => {
      const failedTries: unknown[] = [];
      const cancelled = await withUpdateErrors(async () => {
        // The condition that failed the task clears before the second try, as a transient one would.
        if (failedTries.length === 1) await registerSearchAttributes(env.connection, namespace, [RunStatus]);
        return handle.executeUpdate(cancelRun).catch((error: unknown) => {
          failedTries.push(error);
          throw error;
        });
      }, unhandled);
      expect(failedTries).toHaveLength(1);
      expect(isAbortedByTaskFailure(failedTries[0])).toBe(true);
      expect(cancelled).toMatchObject({ status: 'cancelled', endReason: 'cancelled' });
      expect(await handle.result()).toEqual(cancelled);
      const failedTask = await waitForHistoryEvent(handle, isWorkflowTaskFailure);
      expect(failedTask.workflowTaskFailedEventAttributes?.cause).toBe(temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES);
    });
  });
});
