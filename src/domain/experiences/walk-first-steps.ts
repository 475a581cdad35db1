import { ExperienceRun } from '../../persistence/entities/experience-run.ts';
import type { ExperienceContext } from '../../sandbox-safe/experiences/context-fields.ts';
import { evaluateCondition } from '../../sandbox-safe/experiences/evaluate-condition.ts';
import { follow, stepAt, takesTime, type CarriedStep, type Heard, type Walker } from '../../sandbox-safe/experiences/experience-interpreter.ts';
import type { PathStep } from '../../sandbox-safe/experiences/run-path.ts';
import type { PublishDeps } from '../events/publish-event.ts';
import type { Condition, ExperienceDefinition, WebhookNode } from './definition-schema.ts';
import type { RunRef } from './run-ref.ts';
import { announceRunEnd, fireExperienceWebhook, saveExperienceRunProgress } from './run-steps.ts';

/** Where routing left a new run: ended (it never needs a workflow), or at the node its workflow goes on from. */
export type FirstSteps = { ended: true; path: PathStep[] } | { ended: false; nodeId: string; path: PathStep[] };

/**
 * A new run's first steps, taken by routing in the transaction that enters the run (ADR 0066). Webhook, condition and
 * split nodes need no time to pass, so the run takes them at once, through the interpreter its workflow uses: the
 * webhook's `experience.action` is written to the delivery outbox with the routing decision, and a run that reaches
 * its exit ends here, recorded and announced, with no workflow at all (its `workflowId` is null). A run stops at the
 * first step that takes time (`takesTime`); its workflow, started after the commit, goes on from that node with the
 * path walked so far.
 *
 * Nothing else can reach the run meanwhile: routing holds the person's lock, and the run is not live before the commit.
 */
export async function walkFirstSteps(
  deps: PublishDeps,
  entered: { run: RunRef; entryKey: string },
  definition: ExperienceDefinition,
  context: ExperienceContext,
): Promise<FirstSteps> {
  const { run } = entered;
  const walked = await takeFirstSteps(definition, run, {
    fireWebhook: async (node) => (await fireExperienceWebhook(deps, { run, nodeId: node.id, endpointId: node.endpointId ?? null, result: node.result }, context)).eventId,
    holds: (condition) => evaluateCondition(condition, context),
  });
  if (walked.ended) {
    await endInRouting(deps, entered, context, walked.nodeId, walked.path);
    return { ended: true, path: walked.path };
  }
  if (walked.path.length > 0) await saveExperienceRunProgress(deps.em, { runId: run.runId, currentNodeId: walked.nodeId, path: walked.path });
  return { ended: false, nodeId: walked.nodeId, path: walked.path };
}

/** How routing carries out the steps it takes: a webhook into its transaction's outbox, a condition on the event in hand. */
export interface FirstStepCarrier {
  fireWebhook(node: WebhookNode): Promise<string>;
  holds(condition: Condition): boolean;
}

/**
 * The steps from the start up to the first that takes time (`nodeId`, where the workflow goes on), or to the exit
 * (`ended`, `nodeId` the exit node), with the path they make.
 */
export async function takeFirstSteps(
  definition: ExperienceDefinition,
  walker: Walker,
  carrier: FirstStepCarrier,
  now: () => string = () => new Date().toISOString(),
): Promise<{ ended: boolean; nodeId: string; path: PathStep[] }> {
  const path: PathStep[] = [];
  let step = stepAt(definition, walker, { nodeId: definition.start });
  while (!takesTime(step)) {
    const move = step.kind === 'takeSplit' || step.kind === 'exit' ? step.move : follow(step, await carryOut(step, carrier));
    path.push({ ...move.entry, at: now() });
    if (!move.next) return { ended: true, nodeId: step.node.id, path };
    step = stepAt(definition, walker, move.next);
  }
  return { ended: false, nodeId: step.node.id, path };
}

async function carryOut(step: Exclude<CarriedStep, { kind: 'wait' | 'waitForEvent' | 'callProvider' | 'sendPush' }>, carrier: FirstStepCarrier): Promise<Heard> {
  switch (step.kind) {
    case 'fireWebhook':
      return { kind: 'webhookFired', eventId: await carrier.fireWebhook(step.node) };
    case 'evaluateCondition':
      return { kind: 'conditionEvaluated', holds: carrier.holds(step.node.if) };
  }
}

/** The end a workflow would record for a completed run, and its announcement; an `after_exit` entry is released. */
async function endInRouting(
  deps: PublishDeps,
  { run, entryKey }: { run: RunRef; entryKey: string },
  context: ExperienceContext,
  exitNodeId: string,
  path: PathStep[],
): Promise<void> {
  await deps.em.nativeUpdate(
    ExperienceRun,
    { id: run.runId },
    {
      status: 'completed',
      endReason: 'completed',
      endDetail: null,
      endedAt: new Date(),
      currentNodeId: exitNodeId,
      path,
      workflowId: null,
      ...(entryKey.startsWith('live:') ? { entryKey: null } : {}),
    },
  );
  await announceRunEnd(deps, run, context, 'completed', exitNodeId);
}
