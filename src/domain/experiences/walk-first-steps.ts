import { ExperienceRun, type PathStep } from '../../persistence/entities/experience-run.ts';
import type { ExperienceContext } from '../../sandbox-safe/experiences/context-fields.ts';
import { nodeById, takeSplit } from '../../sandbox-safe/experiences/definition-graph.ts';
import { evaluateCondition } from '../../sandbox-safe/experiences/evaluate-condition.ts';
import type { PublishDeps } from '../events/publish-event.ts';
import type { ExperienceDefinition } from './definition-schema.ts';
import type { RunRef } from './run-ref.ts';
import { announceRunEnd, fireExperienceWebhook, saveExperienceRunProgress } from './run-steps.ts';

/** Where routing left a new run: ended (it never needs a workflow), or at the node its workflow goes on from. */
export type FirstSteps = { ended: true; path: PathStep[] } | { ended: false; nodeId: string; path: PathStep[] };

/**
 * A new run's first steps, taken by routing in the transaction that enters the run (ADR 0066). Webhook, condition and
 * split nodes need no time to pass, so the run takes them at once, exactly as its workflow would: the webhook's
 * `experience.action` is written to the delivery outbox with the routing decision, and a run that reaches its exit
 * ends here, recorded and announced, with no workflow at all (its `workflowId` is null). A run stops at the first
 * node that needs time: a wait, a waitForEvent, a provider call (which may back off for minutes) or a push (FCM's
 * pace, quiet hours); its workflow,
 * started after the commit, goes on from that node with the path walked so far.
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
  const path: PathStep[] = [];
  const record = (node: { id: string; type: string }, outcome: string) => path.push({ nodeId: node.id, type: node.type, at: new Date().toISOString(), outcome });
  const follow = (node: { id: string; type: string }, step: { next: string; outcome: string }) => {
    record(node, step.outcome);
    return step.next;
  };
  let nodeId = definition.start;
  for (;;) {
    const node = nodeById(definition, nodeId);
    // Publishing checked every edge; a missing node is a bug, and the routing transaction fails with it.
    if (!node) throw new Error(`experience ${run.experienceId} has no node ${nodeId}`);
    switch (node.type) {
      case 'webhook': {
        const { eventId } = await fireExperienceWebhook(deps, { run, nodeId: node.id, endpointId: node.endpointId ?? null, result: node.result }, context);
        record(node, `sent ${eventId}`);
        nodeId = node.next;
        break;
      }
      case 'condition':
        nodeId = follow(node, evaluateCondition(node.if, context) ? { next: node.then, outcome: 'then' } : { next: node.else, outcome: 'else' });
        break;
      case 'split':
        nodeId = follow(node, takeSplit(node, run));
        break;
      case 'exit': {
        record(node, 'exit');
        await endInRouting(deps, entered, context, node.id, path);
        return { ended: true, path };
      }
      case 'wait':
      case 'waitForEvent':
      case 'provider':
      case 'push': {
        if (path.length > 0) await saveExperienceRunProgress(deps.em, { runId: run.runId, currentNodeId: node.id, path });
        return { ended: false, nodeId: node.id, path };
      }
    }
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
