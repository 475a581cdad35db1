import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { takeFirstSteps } from '../../src/domain/experiences/walk-first-steps.ts';
import { evaluateCondition, type Condition } from '../../src/sandbox-safe/experiences/evaluate-condition.ts';
import { startExperienceRun } from '../../src/temporal/starters/experience-run.ts';
import { runEvents, type ExperienceRunInput, type ExperienceRunState, type ExperienceRunWorkflow, type WalkedSteps } from '../../workflows/experience-run.contract.ts';
import { contextIn, expectedRun, flowSamples, heldSummary, pathParts, sampleWalker, sentSummary, type ExperienceSample } from '../support/experience-model.ts';
import { startTimeSkippingEnvironment } from '../support/temporal-worker.ts';

// The property of the flow interpreter's two callers, on the real workflow: a run started at `start` and a run started
// where routing's first steps (the real takeFirstSteps) left it walk the same path, the one the model of a run says.
// The world's events are handed over together once the run first waits. Goals are exits without conditions here, so a
// hand-over meets them in one go: which of two local steps in flight answers first cannot change the path.

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startTimeSkippingEnvironment();
}, 120_000);
afterAll(async () => {
  await env?.teardown();
});

/** One run's world and what its activities saw: the activities of every run go through one worker. */
interface Hooks {
  sample: ExperienceSample;
  saved: PromiseWithResolvers<void>;
  ended: PromiseWithResolvers<void>;
  pushed: Set<string>;
}
const runs = new Map<string, Hooks>();
const hooksOf = (runId: string) => runs.get(runId)!;

const activities = {
  async enterExperienceRun() {
    return { status: 'running' };
  },
  async saveExperienceRunProgress(input: { runId: string }) {
    hooksOf(input.runId).saved.resolve();
  },
  async evaluateExperienceCondition(input: { run: { runId: string; triggerEventId: string }; condition: Condition; eventId: string }) {
    const { world } = hooksOf(input.run.runId).sample;
    return evaluateCondition(input.condition, contextIn(world, input.eventId === input.run.triggerEventId ? undefined : input.eventId));
  },
  async fireExperienceWebhook(input: { nodeId: string }) {
    return { eventId: `evt_${input.nodeId}` };
  },
  async publishExperienceGoal() {
    throw new Error('exit goals are announced by the end');
  },
  async callExperienceProvider(input: { run: { runId: string }; nodeId: string }) {
    return hooksOf(input.run.runId).sample.world.provider[input.nodeId]!;
  },
  async sendExperiencePush(input: { run: { runId: string }; nodeId: string }) {
    const hooks = hooksOf(input.run.runId);
    const holds = hooks.sample.world.heldPushes.includes(input.nodeId) && !hooks.pushed.has(input.nodeId);
    hooks.pushed.add(input.nodeId);
    return holds ? { summary: heldSummary, heldUntil: Context.current().info.scheduledTimestampMs + 7_200_000 } : { summary: sentSummary, heldUntil: null };
  },
  async endExperienceRun(input: { run: { runId: string } }) {
    hooksOf(input.run.runId).ended.resolve();
    return { eventId: 'evt_end' };
  },
};

/** Runs the sample on the workflow, from routing's first steps when given; the world's events once the run waits. */
async function runOnWorkflow(taskQueue: string, sample: ExperienceSample, walked?: WalkedSteps): Promise<ExperienceRunState> {
  const runId = `run_${randomUUID()}`;
  const hooks: Hooks = { sample, saved: Promise.withResolvers(), ended: Promise.withResolvers(), pushed: new Set() };
  runs.set(runId, hooks);
  const input: ExperienceRunInput = {
    version: 1,
    runId,
    accountId: randomUUID(),
    experienceId: sampleWalker.experienceId,
    experienceName: 'Property flow',
    experienceVersion: 1,
    definition: sample.definition,
    visitorId: sampleWalker.visitorId,
    clientUserId: 'u_property',
    trigger: { eventId: 'iev_trigger', eventType: 'signup', occurredAt: new Date().toISOString() },
    enteredAt: await env.currentTimeMs(),
    walked,
  };
  const workflowId = `experience:${sampleWalker.experienceId}:${runId}`;
  await startExperienceRun({ client: env.client, taskQueue }, workflowId, input);
  const handle = env.client.workflow.getHandle<ExperienceRunWorkflow>(workflowId);
  // Time passes only while the test awaits the result: the hand-over comes while the run waits on its first wait.
  const waiting = await Promise.race([hooks.saved.promise.then(() => true), hooks.ended.promise.then(() => false)]);
  if (waiting) {
    const occurredAt = new Date().toISOString();
    await handle.signal(runEvents, sample.world.events.map(({ eventId, eventType }) => ({ eventId, eventType, occurredAt })));
  }
  try {
    return await handle.result();
  } finally {
    runs.delete(runId);
  }
}

describe('the flow interpreter’s callers on the experienceRun workflow (time-skipping, property)', () => {
  it('walk the same path from the start as from routing’s first steps, the one the model of a run takes', { timeout: 180_000 }, async () => {
    const taskQueue = `flow-property-${randomUUID()}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities,
    });
    await worker.runUntil(
      fc.assert(
        fc.asyncProperty(flowSamples({ exitGoalsOnly: true, maxNodes: 8 }), async (sample) => {
          const expected = expectedRun(sample);
          const wanted = { flow: pathParts(expected.flow).flow, goals: pathParts(expected.goals).goals };
          const fromStart = await runOnWorkflow(taskQueue, sample);
          expect(pathParts(fromStart.path)).toEqual(wanted);
          expect(fromStart).toMatchObject({ endReason: expected.endReason, currentNodeId: expected.endNodeId });

          const first = await takeFirstSteps(sample.definition, sampleWalker, {
            fireWebhook: async (node) => `evt_${node.id}`,
            holds: (condition) => evaluateCondition(condition, contextIn(sample.world)),
          });
          if (first.ended) {
            // No step takes time: routing ends the run itself, as the workflow would have.
            expect(pathParts(first.path)).toEqual(wanted);
            return;
          }
          const fromRouting = await runOnWorkflow(taskQueue, sample, { nodeId: first.nodeId, path: first.path });
          expect(pathParts(fromRouting.path)).toEqual(wanted);
          expect(fromRouting).toMatchObject({ endReason: expected.endReason, currentNodeId: expected.endNodeId });
        }),
        { numRuns: 40 },
      ),
    );
  });
});
