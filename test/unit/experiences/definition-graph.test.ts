import { describe, expect, it } from 'vitest';
import { chooseSplitBranch, eventTypesHeard, goalsForEventType, hashSeed, nodeById, nodeEdges } from '../../../src/sandbox-safe/experiences/definition-graph.ts';
import { experienceDefinitionSchema, type SplitBranch } from '../../../src/domain/experiences/definition-schema.ts';
import { sampleDefinition } from '../../support/experiences.ts';

const definition = experienceDefinitionSchema.parse(sampleDefinition());

describe('definition graph navigation', () => {
  it('finds nodes by id', () => {
    expect(nodeById(definition, 'check')).toMatchObject({ id: 'check', type: 'condition', then: 'seg', else: 'done' });
    expect(nodeById(definition, 'nope')).toBeUndefined();
  });

  it.each([
    ['welcome', [{ path: ['next'], target: 'wait1' }]],
    ['wait1', [{ path: ['next'], target: 'check' }]],
    ['check', [{ path: ['then'], target: 'seg' }, { path: ['else'], target: 'done' }]],
    ['seg', [{ path: ['next'], target: 'await' }]],
    ['await', [{ path: ['next'], target: 'done' }, { path: ['timeoutNext'], target: 'split' }]],
    ['split', [{ path: ['branches', 0, 'next'], target: 'done' }, { path: ['branches', 1, 'next'], target: 'welcome2' }]],
    ['done', []],
  ])('lists the edges of %s', (id, edges) => {
    expect(nodeEdges(nodeById(definition, id)!)).toEqual(edges);
  });

  it('finds the goals of an event type', () => {
    expect(goalsForEventType(definition, 'purchase').map((goal) => goal.id)).toEqual(['purchased']);
    expect(goalsForEventType(definition, 'signup')).toEqual([]);
  });

  it('hears the event types of its goals and waitForEvent nodes, and no other (not even its trigger)', () => {
    expect([...eventTypesHeard(definition)].sort()).toEqual(['app.opened', 'purchase']);
    expect(eventTypesHeard({ ...definition, goals: [], nodes: definition.nodes.filter((node) => node.type !== 'waitForEvent') })).toEqual(new Set());
  });
});

describe('chooseSplitBranch', () => {
  const halves: SplitBranch[] = [{ percent: 50, next: 'a' }, { percent: 50, next: 'b' }];
  const thirds: SplitBranch[] = [{ percent: 20, next: 'a' }, { percent: 30, next: 'b' }, { percent: 50, next: 'c' }];
  const seeds = Array.from({ length: 20_000 }, (_, index) => `exp_1:vis_${index}:split`);

  it('hashes with FNV-1a and a finaliser, to a fixed unsigned 32-bit value', () => {
    // Fixed values: a change of the hash would move people between branches of running experiences.
    expect([hashSeed(''), hashSeed('a'), hashSeed('exp_1:vis_1:split')]).toEqual([2_872_998_923, 444_641_715, 3_206_353_277]);
  });

  it('takes the same branch for the same seed, every time', () => {
    for (const seed of seeds.slice(0, 200)) {
      expect(chooseSplitBranch(thirds, seed)).toBe(chooseSplitBranch(thirds, seed));
    }
  });

  it.each([
    ['50/50', halves, { a: 0.5, b: 0.5 }],
    ['20/30/50', thirds, { a: 0.2, b: 0.3, c: 0.5 }],
  ] as const)('spreads similar seeds close to the percents (%s)', (_, branches, shares) => {
    const counts: Record<string, number> = {};
    for (const seed of seeds) {
      const { next } = chooseSplitBranch(branches, seed);
      counts[next] = (counts[next] ?? 0) + 1;
    }
    for (const [next, share] of Object.entries(shares)) {
      expect(counts[next]! / seeds.length).toBeGreaterThan(share - 0.02);
      expect(counts[next]! / seeds.length).toBeLessThan(share + 0.02);
    }
  });

  it('never takes a branch of 0 percent, and takes the first when all are 0', () => {
    const branches: SplitBranch[] = [{ percent: 0, next: 'a' }, { percent: 100, next: 'b' }, { percent: 0, next: 'c' }];
    expect(new Set(seeds.slice(0, 1000).map((seed) => chooseSplitBranch(branches, seed).next))).toEqual(new Set(['b']));
    expect(chooseSplitBranch([{ percent: 0, next: 'a' }, { percent: 0, next: 'b' }], 'x').next).toBe('a');
  });
});
