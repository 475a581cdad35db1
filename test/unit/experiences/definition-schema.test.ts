import { describe, expect, it } from 'vitest';
import { maxConditionDepth, maxConditionParts } from '../../../src/domain/experiences/condition-schema.ts';
import { experienceDefinitionSchema, maxTemplatedObjectDepth, maxTemplatedObjectLength } from '../../../src/domain/experiences/definition-schema.ts';
import { sampleDefinition } from '../../support/experiences.ts';

type Mutable = any;
type Change = (definition: Mutable) => void;

/** The problems as a client sees them: dotted path and message. */
function problemsOf(input: unknown): { path: string; message: string }[] {
  const result = experienceDefinitionSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

/** A copy of the sample changed by `change`. */
function changed(change: (definition: Mutable) => void): Mutable {
  const definition = sampleDefinition() as Mutable;
  change(definition);
  return definition;
}

/** Wraps a condition in `levels` groups, alternating all, any and not. */
function nested(levels: number): unknown {
  let condition: unknown = { field: 'event.eventType', op: 'eq', value: 'signup' };
  for (let level = 0; level < levels; level++) {
    condition = level % 3 === 0 ? { all: [condition] } : level % 3 === 1 ? { any: [condition] } : { not: condition };
  }
  return condition;
}

const leaf = { field: 'event.eventType', op: 'eq', value: 'signup' };

describe('experience definition schema: valid definitions', () => {
  it('accepts the sample and returns it unchanged when nothing was left to a default', () => {
    expect(experienceDefinitionSchema.parse(sampleDefinition())).toEqual(sampleDefinition());
  });

  it('fills the defaults of a minimal definition', () => {
    const minimal = { name: 'Tiny', trigger: { eventType: 'signup' }, start: 'end', nodes: [{ id: 'end', type: 'exit' }] };
    expect(experienceDefinitionSchema.parse(minimal)).toEqual({
      name: 'Tiny',
      trigger: { eventType: 'signup', conditions: null },
      entry: { reentry: 'never' },
      goals: [],
      maxDurationSeconds: 90 * 86_400,
      start: 'end',
      nodes: [{ id: 'end', type: 'exit' }],
    });
  });

  it.each<[string, Change, (definition: Mutable) => void]>([
    ['a goal without conditions or exit', (d: Mutable) => (d.goals = [{ id: 'g', eventType: 'purchase' }]), (d: Mutable) => expect(d.goals).toEqual([{ id: 'g', eventType: 'purchase', conditions: null, exit: false }])],
    ['a webhook without result', (d: Mutable) => delete d.nodes[0].result, (d: Mutable) => expect(d.nodes[0].result).toEqual({})],
    ['a waitForEvent without conditions', (d: Mutable) => delete d.nodes[4].conditions, (d: Mutable) => expect(d.nodes[4].conditions).toBeNull()],
    ['an identify call without event', (d: Mutable) => (d.nodes[3] = { ...d.nodes[3], call: 'identify', event: undefined }), (d: Mutable) => expect(d.nodes[3].call).toBe('identify')],
    ['each reentry policy', (d: Mutable) => (d.entry = { reentry: 'after_exit' }), (d: Mutable) => expect(d.entry.reentry).toBe('after_exit')],
    ['a draft over the publish limits (checked at publish)', (d: Mutable) => (d.maxDurationSeconds = 400 * 86_400), (d: Mutable) => expect(d.maxDurationSeconds).toBe(400 * 86_400)],
    ['a split of 0 and 100 percent', (d: Mutable) => (d.nodes[5].branches = [{ percent: 0, next: 'done' }, { percent: 100, next: 'welcome2' }]), () => {}],
    ['a result nested 10 levels deep', (d: Mutable) => (d.nodes[0].result = { a: [[[[[[[[[1]]]]]]]]] }), () => {}],
    ['templates with spaces, whole objects and "$" attribute names', (d: Mutable) => (d.nodes[0].result = { a: '{{ event.attributes }}', b: 'hi {{visitor.attributes.$email}}', c: ['{{trigger.eventType}}', { d: '{{visitor.clientUserId}}' }], 'not {{a}} key': 1 }), () => {}],
    ['"{{" that never closes, kept as text', (d: Mutable) => (d.nodes[0].result = { a: 'a {{ b' }), () => {}],
    ['conditions of every group kind, nested ' + maxConditionDepth + ' deep', (d: Mutable) => (d.trigger.conditions = nested(maxConditionDepth)), () => {}],
    ['every operator with a fitting value', (d: Mutable) => (d.trigger.conditions = { all: [
      { field: 'event.attributes.a', op: 'eq', value: 1 },
      { field: 'event.attributes.a', op: 'neq', value: true },
      { field: 'event.attributes.a', op: 'gt', value: 2 },
      { field: 'event.attributes.a', op: 'gte', value: '2026-01-01T00:00:00Z' },
      { field: 'event.attributes.a', op: 'lt', value: 3 },
      { field: 'event.attributes.a', op: 'lte', value: 'b' },
      { field: 'event.attributes.a', op: 'in', value: ['x', 1, false] },
      { field: 'event.attributes.a', op: 'nin', value: ['x'] },
      { field: 'event.attributes.items.0.sku', op: 'contains', value: 'x' },
      { field: 'visitor.clientUserId', op: 'exists' },
      { field: 'trigger.attributes.a', op: 'notExists' },
    ] }), () => {}],
  ])('accepts %s', (_, change, check) => {
    const result = experienceDefinitionSchema.safeParse(changed(change));
    expect(result.error?.issues ?? []).toEqual([]);
    check(result.data);
  });
});

describe('experience definition schema: structural errors', () => {
  it.each<[string, Change, string, string]>([
    ['an unknown top-level key', (d: Mutable) => (d.owner = 'me'), '', 'Unrecognized key: "owner"'],
    ['a typo in a node key', (d: Mutable) => (d.nodes[1].nxt = 'check'), 'nodes.1', 'Unrecognized key: "nxt"'],
    ['a missing name', (d: Mutable) => delete d.name, 'name', 'is required'],
    ['a blank name', (d: Mutable) => (d.name = '   '), 'name', 'must not be empty'],
    ['a long name', (d: Mutable) => (d.name = 'n'.repeat(201)), 'name', 'must be at most 200 characters'],
    ['a missing trigger', (d: Mutable) => delete d.trigger, 'trigger', 'is required'],
    ['an empty trigger eventType', (d: Mutable) => (d.trigger.eventType = ''), 'trigger.eventType', 'must not be empty'],
    ['a trigger eventType over 200 characters', (d: Mutable) => (d.trigger.eventType = 'e'.repeat(201)), 'trigger.eventType', 'must be at most 200 characters'],
    ['an unknown reentry policy', (d: Mutable) => (d.entry.reentry = 'sometimes'), 'entry.reentry', 'must be one of never, after_exit, always'],
    ['a repeated goal id', (d: Mutable) => d.goals.push({ id: 'purchased', eventType: 'refund' }), 'goals.1.id', 'repeats the id "purchased" of item 0'],
    ['a goal exit that is not a boolean', (d: Mutable) => (d.goals[0].exit = 'yes'), 'goals.0.exit', 'must be a boolean'],
    ['a maxDurationSeconds of 0', (d: Mutable) => (d.maxDurationSeconds = 0), 'maxDurationSeconds', 'must be at least 1'],
    ['a missing start', (d: Mutable) => delete d.start, 'start', 'is required'],
    ['no nodes', (d: Mutable) => (d.nodes = []), 'nodes', 'must have at least one node'],
    ['an unknown node type', (d: Mutable) => (d.nodes[0].type = 'email'), 'nodes.0.type', 'must be one of webhook, wait, condition, provider, push, waitForEvent, split, exit'],
    ['a node id with a space', (d: Mutable) => (d.nodes[0].id = 'wel come'), 'nodes.0.id', 'must be 1 to 64 letters, digits, "_" or "-"'],
    ['a node id over 64 characters', (d: Mutable) => (d.nodes[0].id = 'n'.repeat(65)), 'nodes.0.id', 'must be 1 to 64 letters, digits, "_" or "-"'],
    ['a repeated node id', (d: Mutable) => (d.nodes[7].id = 'welcome'), 'nodes.7.id', 'repeats the id "welcome" of item 0'],
    ['a next that is not an id', (d: Mutable) => (d.nodes[0].next = 'wait 1'), 'nodes.0.next', 'must be 1 to 64 letters, digits, "_" or "-"'],
    ['a wait of 0 seconds', (d: Mutable) => (d.nodes[1].seconds = 0), 'nodes.1.seconds', 'must be at least 1'],
    ['a wait of a fraction of a second', (d: Mutable) => (d.nodes[1].seconds = 1.5), 'nodes.1.seconds', 'must be a whole number of seconds'],
    ['a wait of "1d"', (d: Mutable) => (d.nodes[1].seconds = '1d'), 'nodes.1.seconds', 'must be a number'],
    ['a condition node without else', (d: Mutable) => delete d.nodes[2].else, 'nodes.2.else', 'is required'],
    ['a condition node without if', (d: Mutable) => delete d.nodes[2].if, 'nodes.2.if', 'must be a condition: { field, op, value }, or a group { all: [...] }, { any: [...] } or { not: {...} }'],
    ['a track call without event', (d: Mutable) => delete d.nodes[3].event, 'nodes.3.event', 'is required'],
    ['an identify call with event', (d: Mutable) => (d.nodes[3].call = 'identify'), 'nodes.3.event', 'is only for call track'],
    ['an unknown provider call', (d: Mutable) => (d.nodes[3].call = 'page'), 'nodes.3.call', 'must be one of track, identify'],
    ['a connectionId without its prefix', (d: Mutable) => (d.nodes[3].connectionId = 'Qm3xV0b9XkLr2Tq8HsYw1A'), 'nodes.3.connectionId', 'must be a connection id (conn_…)'],
    ['an endpointId that is a connection id', (d: Mutable) => (d.nodes[6].endpointId = 'conn_Qm3xV0b9XkLr2Tq8HsYw1A'), 'nodes.6.endpointId', 'must be an endpoint id (ep_…)'],
    ['an endpointId too long for an id', (d: Mutable) => (d.nodes[6].endpointId = `ep_${'a'.repeat(38)}`), 'nodes.6.endpointId', 'must be an endpoint id (ep_…)'],
    ['a result that is an array', (d: Mutable) => (d.nodes[0].result = ['welcome']), 'nodes.0.result', 'must be a JSON object'],
    ['a result over the size limit', (d: Mutable) => (d.nodes[0].result = { big: 'x'.repeat(maxTemplatedObjectLength) }), 'nodes.0.result', `must be at most ${maxTemplatedObjectLength} characters as JSON`],
    ['a result nested 11 levels deep', (d: Mutable) => (d.nodes[0].result = { a: [[[[[[[[[[1]]]]]]]]]] }), 'nodes.0.result', `must nest at most ${maxTemplatedObjectDepth} levels deep`],
    ['a hostile, deeply nested result', (d: Mutable) => (d.nodes[0].result = { a: JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) }), 'nodes.0.result', `must nest at most ${maxTemplatedObjectDepth} levels deep`],
    ['a template with an unknown field in a result', (d: Mutable) => (d.nodes[0].result = { deep: [{ plan: 'plan {{visitor.plan}}' }] }), 'nodes.0.result.deep.0.plan', 'the template {{visitor.plan}} names an unknown field'],
    ['an empty template in properties', (d: Mutable) => (d.nodes[3].properties = { plan: '{{ }}' }), 'nodes.3.properties.plan', 'the template {{ }} names an unknown field'],
    ['a bracketed index in a template', (d: Mutable) => (d.nodes[3].properties = { sku: '{{event.attributes.items[0].sku}}' }), 'nodes.3.properties.sku', 'names an unknown field'],
    ['a waitForEvent without timeoutNext', (d: Mutable) => delete d.nodes[4].timeoutNext, 'nodes.4.timeoutNext', 'is required'],
    ['a waitForEvent without timeoutSeconds', (d: Mutable) => delete d.nodes[4].timeoutSeconds, 'nodes.4.timeoutSeconds', 'is required'],
    ['a split with one branch', (d: Mutable) => (d.nodes[5].branches = [{ percent: 100, next: 'done' }]), 'nodes.5.branches', 'must have at least 2 branches'],
    ['a split with 11 branches', (d: Mutable) => (d.nodes[5].branches = Array.from({ length: 11 }, () => ({ percent: 9, next: 'done' }))), 'nodes.5.branches', 'must have at most 10 branches'],
    ['a branch over 100 percent', (d: Mutable) => (d.nodes[5].branches[0].percent = 101), 'nodes.5.branches.0.percent', 'must be 0 to 100'],
    ['a fractional percent', (d: Mutable) => (d.nodes[5].branches[0].percent = 49.5), 'nodes.5.branches.0.percent', 'must be a whole number'],
    ['an exit with a next', (d: Mutable) => (d.nodes[7].next = 'welcome'), 'nodes.7', 'Unrecognized key: "next"'],
  ])('refuses %s', (_, change, path, message) => {
    const problems = problemsOf(changed(change));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe(path);
    expect(problems[0]!.message).toContain(message);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf(changed((d) => {
      d.name = '';
      d.nodes[1].seconds = -1;
      d.nodes[3].call = 'page';
    }));
    expect(problems.map((problem) => problem.path)).toEqual(['name', 'nodes.1.seconds', 'nodes.3.call']);
  });
});

describe('experience definition schema: condition errors', () => {
  const fieldRule = 'must be event.eventType, trigger.eventType, visitor.clientUserId, or event.attributes';
  it.each([
    ['a condition that is a string', 'signup', '', 'must be a condition'],
    ['an unknown operator', { field: 'event.eventType', op: 'equals', value: 'x' }, 'op', 'must be one of eq, neq, gt, gte, lt, lte, in, nin, contains, exists, notExists'],
    ['an unknown field source', { field: 'account.id', op: 'exists' }, 'field', fieldRule],
    ['an attribute path with a bracketed index', { field: 'event.attributes.items[0]', op: 'exists' }, 'field', fieldRule],
    ['an attribute path with an empty step', { field: 'event.attributes..plan', op: 'exists' }, 'field', fieldRule],
    ['a field on the visitor that does not exist', { field: 'visitor.email', op: 'exists' }, 'field', fieldRule],
    ['a field over 300 characters', { field: `event.attributes.${'a'.repeat(290)}`, op: 'exists' }, 'field', 'must be at most 300 characters'],
    ['a missing field', { op: 'exists' }, 'field', 'is required'],
    ['eq with an object', { field: 'event.eventType', op: 'eq', value: { a: 1 } }, 'value', 'must be a string, a number or a boolean'],
    ['eq with null (use notExists)', { field: 'event.eventType', op: 'eq', value: null }, 'value', 'must be a string, a number or a boolean'],
    ['eq without a value', { field: 'event.eventType', op: 'eq' }, 'value', 'must be a string, a number or a boolean'],
    ['gt with a boolean', { field: 'event.attributes.n', op: 'gt', value: true }, 'value', 'must be a number or a string'],
    ['in with a scalar', { field: 'event.eventType', op: 'in', value: 'signup' }, 'value', 'must be an array of strings, numbers or booleans'],
    ['nin with an empty list', { field: 'event.eventType', op: 'nin', value: [] }, 'value', 'must list at least one value'],
    ['in with an object in the list', { field: 'event.eventType', op: 'in', value: ['a', {}] }, 'value.1', 'must be a string, a number or a boolean'],
    ['in with 101 values', { field: 'event.eventType', op: 'in', value: Array.from({ length: 101 }, (_, i) => i) }, 'value', 'must list at most 100 values'],
    ['contains with an array', { field: 'event.attributes.tags', op: 'contains', value: ['a'] }, 'value', 'must be a string, a number or a boolean'],
    ['exists with a value', { field: 'event.eventType', op: 'exists', value: true }, 'value', 'must be left out for exists and notExists'],
    ['a leaf with an extra key', { ...leaf, note: 'x' }, '', 'Unrecognized key: "note"'],
    ['a group with two keys', { all: [leaf], any: [leaf] }, '', 'a group has only the key "all"; unexpected: "any"'],
    ['a group mixed with a leaf', { not: leaf, field: 'event.eventType' }, '', 'a group has only the key "not"; unexpected: "field"'],
    ['an empty all', { all: [] }, 'all', 'must be an array of 1 to 50 conditions'],
    ['an any that is not an array', { any: leaf }, 'any', 'must be an array of 1 to 50 conditions'],
    ['a group of 51 parts', { any: Array.from({ length: 51 }, () => leaf) }, 'any', 'must be an array of 1 to 50 conditions'],
    ['a bad leaf deep inside', { all: [leaf, { not: { any: [leaf, { field: 'event.eventType', op: 'gt' }] } }] }, 'all.1.not.any.1.value', 'must be a number or a string'],
    ['groups nested one level too deep', nested(6), 'not.any.0.all.0.not.any.0', `groups nest at most ${maxConditionDepth} deep`],
    ['more parts than allowed', { any: [{ all: Array.from({ length: 50 }, () => leaf) }, { all: Array.from({ length: 50 }, () => leaf) }] }, 'any.1.all.47', `a condition has at most ${maxConditionParts} parts`],
  ] as const)('refuses %s', (_, condition, path, message) => {
    for (const [where, change] of [
      ['trigger.conditions', (d: Mutable) => (d.trigger.conditions = condition)],
      ['nodes.2.if', (d: Mutable) => (d.nodes[2].if = condition)],
      ['goals.0.conditions', (d: Mutable) => (d.goals[0].conditions = condition)],
      ['nodes.4.conditions', (d: Mutable) => (d.nodes[4].conditions = condition)],
    ] as const) {
      const problems = problemsOf(changed(change));
      expect(problems).toHaveLength(1);
      expect(problems[0]!.path).toBe(path ? `${where}.${path}` : where);
      expect(problems[0]!.message).toContain(message);
    }
  });

  it('stops at the depth limit on a hostile, deeply nested condition', () => {
    const problems = problemsOf(changed((d) => (d.trigger.conditions = nested(10_000))));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toContain(`groups nest at most ${maxConditionDepth} deep`);
  });
});
