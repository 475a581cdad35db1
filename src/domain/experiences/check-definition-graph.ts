import type { ErrorDetail } from '../errors.ts';
import { nodeEdges, type NodeEdge } from '../../sandbox-safe/experiences/definition-graph.ts';
import { maxDurationLimitSeconds, maxNodes, secondsPerDay, type ExperienceDefinition, type ExperienceNode } from './definition-schema.ts';

// The publish rules that look at the whole definition rather than one part of it. The definition has passed
// experienceDefinitionSchema already. Every problem is reported, each with its path in the definition in the form
// of the schema's errors ("nodes.3.next"); the caller puts its own prefix ("body.definition") in front.
// Only one cycle is reported: after it is broken the next one shows.

const at = (...parts: (string | number)[]) => parts.join('.');
const days = (seconds: number) => `${seconds / secondsPerDay} days`;

function durationProblems(definition: ExperienceDefinition): ErrorDetail[] {
  const tooLong = `must be at most ${maxDurationLimitSeconds} seconds (${days(maxDurationLimitSeconds)})`;
  const details: ErrorDetail[] = [];
  if (definition.maxDurationSeconds > maxDurationLimitSeconds) details.push({ path: 'maxDurationSeconds', message: tooLong });
  definition.nodes.forEach((node, index) => {
    if (node.type === 'wait' && node.seconds > maxDurationLimitSeconds) details.push({ path: at('nodes', index, 'seconds'), message: tooLong });
    if (node.type === 'waitForEvent' && node.timeoutSeconds > maxDurationLimitSeconds) {
      details.push({ path: at('nodes', index, 'timeoutSeconds'), message: tooLong });
    }
  });
  return details;
}

function splitProblems(definition: ExperienceDefinition): ErrorDetail[] {
  return definition.nodes.flatMap((node, index) => {
    if (node.type !== 'split') return [];
    const total = node.branches.reduce((sum, branch) => sum + branch.percent, 0);
    return total === 100 ? [] : [{ path: at('nodes', index, 'branches'), message: `percents must add up to 100, not ${total}` }];
  });
}

interface Graph {
  indexOf: Map<string, number>;
  /** Each node's edges to nodes that exist. */
  edges: NodeEdge[][];
}

function buildGraph(nodes: ExperienceNode[]): Graph {
  const indexOf = new Map<string, number>();
  nodes.forEach((node, index) => {
    if (!indexOf.has(node.id)) indexOf.set(node.id, index);
  });
  return { indexOf, edges: nodes.map((node) => nodeEdges(node).filter((edge) => indexOf.has(edge.target))) };
}

function referenceProblems(definition: ExperienceDefinition, graph: Graph): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (!graph.indexOf.has(definition.start)) details.push({ path: 'start', message: `names no node: "${definition.start}"` });
  definition.nodes.forEach((node, index) => {
    for (const edge of nodeEdges(node)) {
      if (!graph.indexOf.has(edge.target)) details.push({ path: at('nodes', index, ...edge.path), message: `names no node: "${edge.target}"` });
    }
  });
  return details;
}

function reachabilityProblems(definition: ExperienceDefinition, graph: Graph): ErrorDetail[] {
  const startIndex = graph.indexOf.get(definition.start);
  if (startIndex === undefined) return [];
  const reached = new Set([startIndex]);
  const queue = [startIndex];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const edge of graph.edges[next]!) {
      const target = graph.indexOf.get(edge.target)!;
      if (!reached.has(target)) {
        reached.add(target);
        queue.push(target);
      }
    }
  }
  return definition.nodes.flatMap((node, index) =>
    reached.has(index) || graph.indexOf.get(node.id) !== index ? [] : [{ path: at('nodes', index), message: `"${node.id}" cannot be reached from start "${definition.start}"` }],
  );
}

/** The first cycle a depth-first walk meets (from start, then from each node in order), or none. */
function cycleProblem(definition: ExperienceDefinition, graph: Graph): ErrorDetail | undefined {
  const state = new Map<number, 'open' | 'done'>();
  const roots = [graph.indexOf.get(definition.start), ...definition.nodes.keys()].filter((index) => index !== undefined);
  for (const root of roots) {
    if (state.has(root)) continue;
    // An explicit stack instead of recursion: each frame is a node on the current path and its next edge to try.
    const path: { index: number; edge: number }[] = [{ index: root, edge: 0 }];
    state.set(root, 'open');
    while (path.length > 0) {
      const frame = path[path.length - 1]!;
      const edge = graph.edges[frame.index]![frame.edge++];
      if (!edge) {
        state.set(frame.index, 'done');
        path.pop();
        continue;
      }
      const target = graph.indexOf.get(edge.target)!;
      if (state.get(target) === 'open') {
        const loop = path.slice(path.findIndex((step) => step.index === target)).map((step) => definition.nodes[step.index]!.id);
        return { path: at('nodes', frame.index, ...edge.path), message: `closes a cycle: ${[...loop, edge.target].join(' → ')}` };
      }
      if (!state.has(target)) {
        state.set(target, 'open');
        path.push({ index: target, edge: 0 });
      }
    }
  }
  return undefined;
}

/** Every problem that keeps this definition from being published; none means it may be. */
export function checkDefinitionGraph(definition: ExperienceDefinition): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (definition.nodes.length > maxNodes) details.push({ path: 'nodes', message: `must have at most ${maxNodes} nodes, not ${definition.nodes.length}` });
  const graph = buildGraph(definition.nodes);
  details.push(...referenceProblems(definition, graph), ...reachabilityProblems(definition, graph));
  const cycle = cycleProblem(definition, graph);
  if (cycle) details.push(cycle);
  details.push(...splitProblems(definition), ...durationProblems(definition));
  return details;
}
