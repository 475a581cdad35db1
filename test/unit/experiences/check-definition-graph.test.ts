import { describe, expect, it } from 'vitest';
import { checkDefinitionGraph } from '../../../src/domain/experiences/check-definition-graph.ts';
import { experienceDefinitionSchema, type ExperienceDefinition } from '../../../src/domain/experiences/definition-schema.ts';
import { sampleDefinition } from '../../support/experiences.ts';

type Mutable = any;
type Change = (definition: Mutable) => void;

/** The sample, changed, then parsed: the graph checks see what the schema lets through. */
function definitionWith(change: (definition: Mutable) => void): ExperienceDefinition {
  const definition = sampleDefinition() as Mutable;
  change(definition);
  return experienceDefinitionSchema.parse(definition);
}

const year = 365 * 86_400;
const sampleIds = sampleDefinition().nodes.map((node) => node.id);
/** The details for sample nodes that start no longer reaches. */
const unreachable = (...indexes: number[]) =>
  indexes.map((index) => ({ path: `nodes.${index}`, message: `"${sampleIds[index]}" cannot be reached from start "welcome"` }));

/** A straight line of n nodes: n-1 waits, then an exit. */
function line(length: number): ExperienceDefinition {
  const nodes = Array.from({ length }, (_, index) =>
    index === length - 1 ? { id: `n${index}`, type: 'exit' } : { id: `n${index}`, type: 'wait', seconds: 1, next: `n${index + 1}` },
  );
  return experienceDefinitionSchema.parse({ name: 'Line', trigger: { eventType: 'signup' }, start: 'n0', nodes });
}

describe('checkDefinitionGraph', () => {
  it('finds nothing wrong with the sample', () => {
    expect(checkDefinitionGraph(definitionWith(() => {}))).toEqual([]);
  });

  it('accepts 200 nodes and durations of exactly 365 days', () => {
    expect(checkDefinitionGraph(line(200))).toEqual([]);
    expect(checkDefinitionGraph(definitionWith((d) => {
      d.maxDurationSeconds = year;
      d.nodes[1].seconds = year;
      d.nodes[4].timeoutSeconds = year;
    }))).toEqual([]);
  });

  it.each<[string, Change, { path: string; message: string }[]]>([
    ['a start that names no node', (d: Mutable) => (d.start = 'hello'), [
      { path: 'start', message: 'names no node: "hello"' },
    ]],
    ['a next that names no node', (d: Mutable) => (d.nodes[1].next = 'chek'), [
      { path: 'nodes.1.next', message: 'names no node: "chek"' },
      ...unreachable(2, 3, 4, 5, 6, 7),
    ]],
    ['a then and an else that name no node', (d: Mutable) => Object.assign(d.nodes[2], { then: 'x', else: 'y' }), [
      { path: 'nodes.2.then', message: 'names no node: "x"' },
      { path: 'nodes.2.else', message: 'names no node: "y"' },
      ...unreachable(3, 4, 5, 6, 7),
    ]],
    ['a timeoutNext that names no node', (d: Mutable) => (d.nodes[4].timeoutNext = 'later'), [
      { path: 'nodes.4.timeoutNext', message: 'names no node: "later"' },
      ...unreachable(5, 6),
    ]],
    ['a branch that names no node', (d: Mutable) => (d.nodes[5].branches[1].next = 'nowhere'), [
      { path: 'nodes.5.branches.1.next', message: 'names no node: "nowhere"' },
      ...unreachable(6),
    ]],
    ['a node nothing leads to', (d: Mutable) => d.nodes.push({ id: 'orphan', type: 'exit' }), [
      { path: 'nodes.8', message: '"orphan" cannot be reached from start "welcome"' },
    ]],
    ['a node that leads to itself', (d: Mutable) => (d.nodes[1].next = 'wait1'), [
      ...unreachable(2, 3, 4, 5, 6, 7),
      { path: 'nodes.1.next', message: 'closes a cycle: wait1 → wait1' },
    ]],
    ['a loop back to the start', (d: Mutable) => (d.nodes[6].next = 'welcome'), [
      { path: 'nodes.6.next', message: 'closes a cycle: welcome → wait1 → check → seg → await → split → welcome2 → welcome' },
    ]],
    ['a loop through a timeout', (d: Mutable) => (d.nodes[5].branches[0].next = 'await'), [
      { path: 'nodes.5.branches.0.next', message: 'closes a cycle: await → split → await' },
    ]],
    ['split percents that add up to 90', (d: Mutable) => (d.nodes[5].branches[1].percent = 40), [
      { path: 'nodes.5.branches', message: 'percents must add up to 100, not 90' },
    ]],
    ['split percents that add up to 110', (d: Mutable) => (d.nodes[5].branches = [{ percent: 60, next: 'done' }, { percent: 50, next: 'welcome2' }]), [
      { path: 'nodes.5.branches', message: 'percents must add up to 100, not 110' },
    ]],
    ['a wait over 365 days', (d: Mutable) => (d.nodes[1].seconds = year + 1), [
      { path: 'nodes.1.seconds', message: `must be at most ${year} seconds (365 days)` },
    ]],
    ['a waitForEvent timeout over 365 days', (d: Mutable) => (d.nodes[4].timeoutSeconds = year + 1), [
      { path: 'nodes.4.timeoutSeconds', message: `must be at most ${year} seconds (365 days)` },
    ]],
    ['a maxDurationSeconds over 365 days', (d: Mutable) => (d.maxDurationSeconds = 2 * year), [
      { path: 'maxDurationSeconds', message: `must be at most ${year} seconds (365 days)` },
    ]],
  ])('reports %s', (_, change, details) => {
    expect(checkDefinitionGraph(definitionWith(change))).toEqual(details);
  });

  it('reports more than 200 nodes', () => {
    expect(checkDefinitionGraph(line(201))).toEqual([{ path: 'nodes', message: 'must have at most 200 nodes, not 201' }]);
  });

  it('reports one cycle even when there are several, and finds cycles among unreachable nodes', () => {
    const definition = definitionWith((d) => {
      d.nodes[1].next = 'welcome';
      d.nodes[6].next = 'split';
    });
    const cycles = checkDefinitionGraph(definition).filter((detail) => detail.message.startsWith('closes a cycle'));
    expect(cycles).toEqual([{ path: 'nodes.1.next', message: 'closes a cycle: welcome → wait1 → welcome' }]);

    const island = definitionWith((d) => d.nodes.push({ id: 'a', type: 'wait', seconds: 1, next: 'b' }, { id: 'b', type: 'wait', seconds: 1, next: 'a' }));
    expect(checkDefinitionGraph(island)).toEqual([
      { path: 'nodes.8', message: '"a" cannot be reached from start "welcome"' },
      { path: 'nodes.9', message: '"b" cannot be reached from start "welcome"' },
      { path: 'nodes.9.next', message: 'closes a cycle: a → b → a' },
    ]);
  });

  it('walks a long chain without running out of stack', () => {
    const nodes = Array.from({ length: 20_000 }, (_, index) => ({ id: `n${index}`, type: 'wait' as const, seconds: 1, next: `n${(index + 1) % 20_000}` }));
    const details = checkDefinitionGraph({ ...line(1), start: 'n0', nodes });
    expect(details[0]).toEqual({ path: 'nodes', message: 'must have at most 200 nodes, not 20000' });
    expect(details.at(-1)).toEqual({ path: 'nodes.19999.next', message: expect.stringMatching(/^closes a cycle: n0 → n1 → .* → n19999 → n0$/) });
  });
});
