import type { ExperienceDefinition, ExperienceGoal, ExperienceNode, SplitBranch } from '../../domain/experiences/definition-schema.ts';

// Walking an experience's graph. Pure TypeScript with type-only imports: the experience workflow imports it at run
// time, so it must stay free of zod and Node APIs.

export function nodeById(definition: ExperienceDefinition, id: string): ExperienceNode | undefined {
  return definition.nodes.find((node) => node.id === id);
}

/** One arrow out of a node: where it is in the node (e.g. ["branches", 1, "next"]) and the node id it names. */
export interface NodeEdge {
  path: (string | number)[];
  target: string;
}

/** The node's arrows in the order they are written; an exit has none. */
export function nodeEdges(node: ExperienceNode): NodeEdge[] {
  switch (node.type) {
    case 'webhook':
    case 'wait':
    case 'provider':
    case 'push':
      return [{ path: ['next'], target: node.next }];
    case 'condition':
      return [
        { path: ['then'], target: node.then },
        { path: ['else'], target: node.else },
      ];
    case 'waitForEvent':
      return [
        { path: ['next'], target: node.next },
        { path: ['timeoutNext'], target: node.timeoutNext },
      ];
    case 'split':
      return node.branches.map((branch, index) => ({ path: ['branches', index, 'next'], target: branch.next }));
    case 'exit':
      return [];
  }
}

/** The goals an event of this type may reach (their conditions still have to hold). */
export function goalsForEventType(definition: ExperienceDefinition, eventType: string): ExperienceGoal[] {
  return definition.goals.filter((goal) => goal.eventType === eventType);
}

/**
 * The event types a run of this definition does anything with: its goals' and its waitForEvent nodes' types. An event
 * of any other type changes nothing in the run (its conditions read events by id from Postgres, not from the run), so
 * routing hands a live run only events of these types.
 */
export function eventTypesHeard(definition: ExperienceDefinition): Set<string> {
  const heard = new Set(definition.goals.map((goal) => goal.eventType));
  for (const node of definition.nodes) if (node.type === 'waitForEvent') heard.add(node.eventType);
  return heard;
}

/**
 * A well-spread 32-bit hash of the seed: FNV-1a over its UTF-16 code units, then MurmurHash3's finaliser, so that
 * seeds differing only in their last characters (run-1, run-2) still land far apart.
 */
export function hashSeed(seed: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < seed.length; index++) {
    hash ^= seed.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The branch this seed takes: the seed's bucket, hash mod the sum of the percents (0–99 for a published split),
 * falls in one branch's cumulative range. The same seed always takes the same branch (the caller picks a seed
 * that is stable for the person and the node, so a replay or a retry does not move anyone). A branch of 0 percent
 * is never taken; if every percent is 0 the first branch is.
 */
export function chooseSplitBranch(branches: readonly SplitBranch[], seed: string): SplitBranch {
  if (branches.length === 0) throw new Error('a split needs at least one branch');
  const total = branches.reduce((sum, branch) => sum + branch.percent, 0);
  if (total === 0) return branches[0]!;
  const bucket = hashSeed(seed) % total;
  let upTo = 0;
  for (const branch of branches) {
    upTo += branch.percent;
    if (bucket < upTo) return branch;
  }
  return branches[branches.length - 1]!;
}

/**
 * Where a person goes at a split, and how the run's path says so. The seed is the experience, the person (the run
 * when anonymous) and the node, so the workflow and routing's first steps send the same person the same way.
 */
export function takeSplit(
  node: Extract<ExperienceNode, { type: 'split' }>,
  run: { experienceId: string; visitorId: string | null; runId: string },
): { next: string; outcome: string } {
  const branch = chooseSplitBranch(node.branches, `${run.experienceId}:${run.visitorId ?? run.runId}:${node.id}`);
  return { next: branch.next, outcome: `branch ${node.branches.indexOf(branch) + 1} of ${node.branches.length} → ${branch.next}` };
}
