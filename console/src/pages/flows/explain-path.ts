import type { FlowNode } from './flow-graph-layout.ts';
import { edgesOf } from './flow-graph-layout.ts';
import type { Run } from './flow-queries.ts';

type Step = Run['path'][number];

/** A condition as one line: `field op value`, groups as all(…), any(…), not(…). */
export function describeCondition(condition: unknown): string {
  if (condition === null || typeof condition !== 'object') return 'always';
  const c = condition as { all?: unknown[]; any?: unknown[]; not?: unknown; field?: string; op?: string; value?: unknown };
  if (c.all) return `all(${c.all.map(describeCondition).join(', ')})`;
  if (c.any) return `any(${c.any.map(describeCondition).join(', ')})`;
  if (c.not !== undefined) return `not(${describeCondition(c.not)})`;
  return [c.field, c.op, c.value === undefined ? '' : JSON.stringify(c.value)].filter(Boolean).join(' ');
}

/** Why the run did what it did at a step, in words, from the step's outcome and the node's definition. */
function whyOf(step: Step, node: FlowNode | undefined): string {
  if (step.type === 'goal') return `Goal ${step.nodeId.replace(/^goal:/, '')}: ${step.outcome}`;
  if (!node) return `${step.outcome} (a node of an older version)`;
  switch (node.type) {
    case 'condition':
      return step.outcome === 'then' ? `The condition ${describeCondition(node.if)} held: then` : `The condition ${describeCondition(node.if)} did not hold: else`;
    case 'waitForEvent':
      return step.outcome === 'timeout'
        ? `No ${node.eventType} event came within ${node.timeoutSeconds} s: timeout`
        : `The awaited event came: ${step.outcome}`;
    case 'split':
      return `Split by a hash of the person: ${step.outcome}`;
    case 'wait':
      return `Waited: ${step.outcome}`;
    case 'exit':
      return 'Reached the exit: the run completed';
    default:
      return step.outcome;
  }
}

export interface ExplainedStep {
  step: Step;
  why: string;
  /** The node the run went to next, if it went on. */
  then: string | undefined;
}

export function explainSteps(run: Run, nodes: FlowNode[]): ExplainedStep[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const moves = run.path.filter((step) => step.type !== 'goal');
  return run.path.map((step) => {
    const index = moves.indexOf(step);
    // After its last step the run went to the node it is at (or ended at), unless that is the step's own.
    const current = run.currentNodeId !== step.nodeId ? (run.currentNodeId ?? undefined) : undefined;
    const next = index >= 0 ? (moves[index + 1]?.nodeId ?? current) : undefined;
    return { step, why: whyOf(step, byId.get(step.nodeId)), then: next };
  });
}

/** The nodes a run at `start` may still reach. */
function reachableFrom(start: string, nodes: FlowNode[]): Set<string> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length) {
    const node = byId.get(queue.shift()!);
    if (!node) continue;
    for (const edge of edgesOf(node)) {
      if (seen.has(edge.to)) continue;
      seen.add(edge.to);
      queue.push(edge.to);
    }
  }
  return seen;
}

/**
 * Each node of the definition the run did not pass, with why: a node it passed chose another way, the run is
 * waiting before it, or it ended before it.
 */
export function explainSkipped(run: Run, nodes: FlowNode[]): Array<{ nodeId: string; why: string }> {
  const passed = new Map(run.path.map((step) => [step.nodeId, step]));
  const ended = run.status !== 'running';
  // The nodes after where the run is (or ended): not reached, rather than passed over by a choice.
  const ahead = run.currentNodeId ? reachableFrom(run.currentNodeId, nodes) : new Set<string>();
  const notReached = ended ? `Not reached: the run ended (${run.endReason ?? run.status}) before it` : 'Not reached yet';
  return nodes
    .filter((node) => !passed.has(node.id))
    .map((node) => {
      if (node.id === run.currentNodeId) {
        return { nodeId: node.id, why: ended ? `The run ended here (${run.endReason ?? run.status}${run.endDetail ? `: ${run.endDetail}` : ''})` : 'The run is here now' };
      }
      if (ahead.has(node.id)) return { nodeId: node.id, why: notReached };
      const chooser = nodes.find((other) => passed.has(other.id) && edgesOf(other).some((edge) => edge.to === node.id) && edgesOf(other).length > 1);
      if (chooser) return { nodeId: node.id, why: `Skipped: at ${chooser.id} the run went “${passed.get(chooser.id)!.outcome}”` };
      return { nodeId: node.id, why: notReached };
    });
}
