// TEMPORARY stand-in, replaced by branch i9-flowdef.
import type { ExperienceDefinition, ExperienceNode } from './definition-schema.ts';

export function nodeById(definition: ExperienceDefinition, id: string): ExperienceNode {
  const node = definition.nodes.find((candidate) => candidate.id === id);
  if (!node) throw new Error(`no node ${id}`);
  return node;
}

export function chooseSplitBranch(branches: Array<{ percent: number; next: string }>, seed: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  const bucket = hash % 100;
  let total = 0;
  for (let i = 0; i < branches.length; i++) {
    total += branches[i]!.percent;
    if (bucket < total) return i;
  }
  return branches.length - 1;
}
