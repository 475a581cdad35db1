import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  absentValue,
  componentRef,
  defineConditionLanguage,
  leafShape,
  listOf,
  maxGroupDepth,
  maxGroupParts,
  maxListValues,
  maxParts,
  maxStringValueLength,
  orderedValue,
  scalarFieldValues,
  scalarValue,
  sharedOperators,
  stringValue,
  type ConditionLanguageOptions,
  type LeafChecker,
} from '../../../src/domain/conditions/condition-language.ts';

// The shared walk, with a toy leaf: `{ n: <integer> }`, checked as such and returned doubled, so a test can see that
// the walk hands back what the leaf checker returned.

const checkLeaf: LeafChecker<{ n: number }> = (value, path, problems) => {
  if (!Number.isInteger(value.n)) {
    problems.push({ path: [...path, 'n'], message: 'must be an integer' });
    return undefined;
  }
  return { n: (value.n as number) * 2 };
};

const base: ConditionLanguageOptions<{ n: number }> = {
  groups: ['all', 'any', 'not'],
  fewestInAll: 1,
  shapeRule: 'must be a leaf or a group',
  words: { whole: 'toy', leaves: 'leaves', parts: 'parts' },
  checkLeaf,
};

const language = (options: Partial<ConditionLanguageOptions<{ n: number }>> = {}) => defineConditionLanguage({ ...base, ...options });

/** The problems with dotted paths, as a client sees them. */
const problemsOf = (options: Partial<ConditionLanguageOptions<{ n: number }>>, value: unknown) =>
  language(options)
    .check(value)
    .problems.map((problem) => ({ path: problem.path.join('.'), message: problem.message }));

const leaf = { n: 1 };

/** `levels` groups around a leaf, alternating the given keys. */
function nested(levels: number, keys: ('all' | 'any' | 'not')[]): unknown {
  let value: unknown = leaf;
  for (let level = 0; level < levels; level++) {
    const key = keys[level % keys.length]!;
    value = key === 'not' ? { not: value } : { [key]: [value] };
  }
  return value;
}

describe('condition language: limits and values', () => {
  it('has the limits both languages document', () => {
    expect({ maxGroupDepth, maxParts, maxGroupParts, maxListValues, maxStringValueLength }).toEqual({
      maxGroupDepth: 5,
      maxParts: 100,
      maxGroupParts: 50,
      maxListValues: 100,
      maxStringValueLength: 1000,
    });
  });

  it('checks scalar, ordered, list and absent values with their messages', () => {
    const messageOf = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;
    expect(stringValue.safeParse('x'.repeat(maxStringValueLength)).success).toBe(true);
    expect(messageOf(stringValue, 'x'.repeat(maxStringValueLength + 1))).toBe(`must be at most ${maxStringValueLength} characters`);
    for (const value of ['a', 1, true]) expect(scalarValue.safeParse(value).success).toBe(true);
    expect(messageOf(scalarValue, null)).toBe('must be a string, a number or a boolean');
    expect(messageOf(scalarValue, 'x'.repeat(maxStringValueLength + 1))).toBe(`must be at most ${maxStringValueLength} characters`);
    expect(orderedValue.safeParse(2).success).toBe(true);
    expect(messageOf(orderedValue, false)).toBe('must be a number or a string');
    const list = listOf(z.number(), 'numbers');
    expect(list.safeParse([1]).success).toBe(true);
    expect(messageOf(list, 'no')).toBe('must be an array of numbers');
    expect(messageOf(list, [])).toBe('must list at least one value');
    expect(messageOf(list, Array(maxListValues + 1).fill(1))).toBe(`must list at most ${maxListValues} values`);
    expect(absentValue.safeParse(undefined).success).toBe(true);
    expect(messageOf(absentValue, 1)).toBe('must be left out for exists and notExists');
  });

  it('gives each shared operator the value it takes on a field holding any scalar', () => {
    expect(Object.keys(scalarFieldValues).sort()).toEqual([...sharedOperators].sort());
    expect(scalarFieldValues.eq.safeParse(true).success).toBe(true);
    expect(scalarFieldValues.gt.safeParse(true).success).toBe(false);
    expect(scalarFieldValues.in.safeParse(['a', 1, false]).success).toBe(true);
    expect(scalarFieldValues.nin.safeParse('a').error?.issues[0]?.message).toBe('must be an array of strings, numbers or booleans');
    expect(scalarFieldValues.exists.safeParse(undefined).success).toBe(true);
  });
});

describe('condition language: the walk', () => {
  it('accepts leaves and groups, and returns them as the leaf checker returned them', () => {
    const lang = language();
    expect(lang.check(leaf)).toEqual({ checked: { n: 2 }, problems: [] });
    expect(lang.check({ all: [leaf, { any: [{ n: 2 }, { not: { n: 3 } }] }] })).toEqual({
      checked: { all: [{ n: 2 }, { any: [{ n: 4 }, { not: { n: 6 } }] }] },
      problems: [],
    });
  });

  it('reports every problem at its place, in document order, and returns no body then', () => {
    expect(language().check({ any: [{ n: 'x' }, leaf, 7, { not: null }] })).toEqual({
      checked: undefined,
      problems: [
        { path: ['any', 0, 'n'], message: 'must be an integer' },
        { path: ['any', 2], message: 'must be a leaf or a group' },
        { path: ['any', 3, 'not'], message: 'must be a leaf or a group' },
      ],
    });
  });

  it('takes a leaf at the root unless the root must be a group', () => {
    expect(problemsOf({}, leaf)).toEqual([]);
    expect(problemsOf({}, [])).toEqual([{ path: '', message: 'must be a leaf or a group' }]);
    const rootGroupRule = 'must be a group';
    expect(problemsOf({ rootGroupRule }, leaf)).toEqual([{ path: '', message: rootGroupRule }]);
    expect(problemsOf({ rootGroupRule }, null)).toEqual([{ path: '', message: rootGroupRule }]);
    expect(problemsOf({ rootGroupRule }, { any: [leaf] })).toEqual([]);
    expect(problemsOf({ rootGroupRule }, { any: [null] })).toEqual([{ path: 'any.0', message: 'must be a leaf or a group' }]);
  });

  it('has only the group keys it is given: without not, { not } is a leaf', () => {
    expect(problemsOf({ groups: ['all', 'any'] }, { not: leaf })).toEqual([{ path: 'n', message: 'must be an integer' }]);
    expect(language({ groups: ['all', 'any'] }).groupShapes(componentRef('Toy')).map((shape) => shape.required)).toEqual([['all'], ['any']]);
  });

  it('reads a group by the first of all, any, not, and names the other keys', () => {
    expect(problemsOf({}, { not: leaf, any: [leaf], extra: 1 })).toEqual([{ path: '', message: 'a group has only the key "any"; unexpected: "not", "extra"' }]);
    // The order is the language's, not the one the options list.
    expect(problemsOf({ groups: ['not', 'any', 'all'] }, { any: 'no', all: [leaf] })).toEqual([
      { path: '', message: 'a group has only the key "all"; unexpected: "any"' },
    ]);
  });

  it('wants 1 to 50 parts in a group, or 0 to 50 in an all when the language allows an empty all', () => {
    expect(problemsOf({}, { all: [] })).toEqual([{ path: 'all', message: `must be an array of 1 to ${maxGroupParts} parts` }]);
    expect(problemsOf({}, { any: {} })).toEqual([{ path: 'any', message: `must be an array of 1 to ${maxGroupParts} parts` }]);
    expect(problemsOf({ fewestInAll: 0 }, { all: [] })).toEqual([]);
    expect(language({ fewestInAll: 0 }).check({ all: [] }).checked).toEqual({ all: [] });
    expect(problemsOf({ fewestInAll: 0 }, { any: [] })).toEqual([{ path: 'any', message: `must be an array of 1 to ${maxGroupParts} parts` }]);
    expect(problemsOf({ fewestInAll: 0 }, { all: Array(maxGroupParts + 1).fill(leaf) })).toEqual([{ path: 'all', message: `must be an array of 0 to ${maxGroupParts} parts` }]);
    expect(problemsOf({}, { any: Array(maxGroupParts).fill(leaf) })).toEqual([]);
  });

  it('nests groups, not included, at most maxGroupDepth deep', () => {
    expect(problemsOf({}, nested(maxGroupDepth, ['all', 'any', 'not']))).toEqual([]);
    expect(problemsOf({}, nested(maxGroupDepth + 1, ['not']))).toEqual([{ path: 'not.not.not.not.not', message: `groups nest at most ${maxGroupDepth} deep` }]);
    expect(problemsOf({}, nested(maxGroupDepth + 1, ['any']))).toEqual([{ path: 'any.0.any.0.any.0.any.0.any.0', message: `groups nest at most ${maxGroupDepth} deep` }]);
  });

  it('stops at the first part over maxParts, with one problem', () => {
    const half = Array(maxGroupParts).fill(leaf);
    // Two groups of 50 leaves and the root: the 101st part is the 48th leaf of the second group.
    expect(problemsOf({}, { all: [{ all: half }, { all: half }] })).toEqual([{ path: 'all.1.all.47', message: `a toy has at most ${maxParts} parts (leaves and groups)` }]);
    expect(problemsOf({ words: { whole: 'thing', leaves: 'conditions', parts: 'parts' } }, { any: [{ any: half }, { any: half }] })).toEqual([
      { path: 'any.1.any.47', message: `a thing has at most ${maxParts} parts (conditions and groups)` },
    ]);
  });

  it('does not exhaust the stack on a body nested far too deep', () => {
    let deep: unknown = leaf;
    for (let level = 0; level < 100_000; level++) deep = level % 2 ? { all: [deep] } : { not: deep };
    expect(problemsOf({}, deep)).toHaveLength(1);
  });
});

describe('condition language: the zod schema and its OpenAPI shape', () => {
  const lang = language({ groups: ['all', 'any'], fewestInAll: 0 });
  const override = { oneOf: [leafShape({ maxFieldLength: 9, examples: ['a'], operators: ['eq', 'in'], valueDescription: 'A value.' }), ...lang.groupShapes(componentRef('ToyLanguageTest'))] };
  const schema = lang.schema<unknown>({ id: 'ToyLanguageTest', description: 'A toy.', override });

  it('reports the walk’s problems as issues at their paths, and lets a good body through as sent', () => {
    expect(schema.parse({ any: [leaf] })).toEqual({ any: [leaf] });
    const issues = schema.safeParse({ any: [leaf, { n: 0.5 }, 'x'] }).error?.issues;
    expect(issues?.map((issue) => ({ code: issue.code, path: issue.path, message: issue.message }))).toEqual([
      { code: 'custom', path: ['any', 1, 'n'], message: 'must be an integer' },
      { code: 'custom', path: ['any', 2], message: 'must be a leaf or a group' },
    ]);
  });

  it('carries its id, description and hand-written shape for the OpenAPI document', () => {
    expect(z.globalRegistry.get(schema)).toMatchObject({ id: 'ToyLanguageTest', description: 'A toy.', override });
  });

  it('writes the shapes of leaves and groups', () => {
    expect(override.oneOf).toEqual([
      {
        type: 'object',
        required: ['field', 'op'],
        additionalProperties: false,
        properties: { field: { type: 'string', maxLength: 9, examples: ['a'] }, op: { type: 'string', enum: ['eq', 'in'] }, value: { description: 'A value.' } },
      },
      {
        type: 'object',
        required: ['all'],
        additionalProperties: false,
        properties: { all: { type: 'array', minItems: 0, maxItems: maxGroupParts, items: { $ref: '#/components/schemas/ToyLanguageTest' } } },
      },
      {
        type: 'object',
        required: ['any'],
        additionalProperties: false,
        properties: { any: { type: 'array', minItems: 1, maxItems: maxGroupParts, items: { $ref: '#/components/schemas/ToyLanguageTest' } } },
      },
    ]);
    expect(language().groupShapes({ type: 'string' })[2]).toEqual({ type: 'object', required: ['not'], additionalProperties: false, properties: { not: { type: 'string' } } });
  });
});
