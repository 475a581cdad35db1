import { describe, expect, it } from 'vitest';
import { maxGroupParts, maxListValues, maxRuleDepth, maxRuleParts, segmentRulesSchema } from '../../../src/domain/segments/rules-schema.ts';

/** The problems as a client sees them: dotted path and message. */
function problemsOf(input: unknown): { path: string; message: string }[] {
  const result = segmentRulesSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

const problemAt = (input: unknown) => problemsOf(input).map((problem) => problem.path);

describe('segment rules schema: accepted', () => {
  it('accepts every op each field allows, and returns the rules as sent', () => {
    const rules = {
      all: [
        { field: 'platform', op: 'in', value: ['ios', 'android'] },
        { field: 'subscribed', op: 'eq', value: true },
        { field: 'clientUserId', op: 'exists' },
        { field: 'locale', op: 'neq', value: 'fr-FR' },
        { field: 'lastSeenAt', op: 'gt', value: '2026-01-02T03:04:05.000+01:00' },
        { field: 'lastSeenAt', op: 'olderThanHours', value: 0.5 },
        {
          any: [
            { field: 'attributes.plan', op: 'eq', value: 'pro' },
            { field: 'attributes.age', op: 'gte', value: 18 },
            { field: 'attributes.address.country', op: 'nin', value: ['GB', 1, false] },
            { field: 'attributes.$email', op: 'notExists' },
          ],
        },
      ],
    };
    expect(segmentRulesSchema.parse(rules)).toEqual(rules);
  });

  it('puts locales in canonical form, as devices store them', () => {
    expect(segmentRulesSchema.parse({ any: [{ field: 'locale', op: 'in', value: ['en_gb', 'PT-br'] }] })).toEqual({
      any: [{ field: 'locale', op: 'in', value: ['en-GB', 'pt-BR'] }],
    });
  });

  it('accepts an empty all (every device) and groups nested to the limit', () => {
    expect(problemsOf({ all: [] })).toEqual([]);
    let rules: unknown = { field: 'platform', op: 'eq', value: 'web' };
    for (let level = 0; level < maxRuleDepth; level++) rules = level % 2 ? { all: [rules] } : { any: [rules] };
    expect(problemsOf(rules)).toEqual([]);
  });
});

describe('segment rules schema: refused, each problem at its path', () => {
  it('wants a group at the root', () => {
    expect(problemsOf({ field: 'platform', op: 'eq', value: 'ios' })).toEqual([{ path: '', message: 'must be a group { all: [...] } or { any: [...] }' }]);
    expect(problemAt([])).toEqual(['']);
    expect(problemAt(null)).toEqual(['']);
  });

  it('names the unknown field and the op a field does not allow', () => {
    expect(problemsOf({ all: [{ field: 'token', op: 'eq', value: 'x' }] })[0]).toMatchObject({ path: 'all.0.field', message: expect.stringMatching(/^must be platform, subscribed/) });
    expect(problemAt({ all: [{ field: 'attributes', op: 'exists' }] })).toEqual(['all.0.field']);
    expect(problemAt({ all: [{ field: 'attributes.a b', op: 'exists' }] })).toEqual(['all.0.field']);
    expect(problemAt({ all: [{ field: 'attributes.a.b.c.d.e.f', op: 'exists' }] })).toEqual(['all.0.field']);
    expect(problemsOf({ all: [{ field: 'platform', op: 'gt', value: 'ios' }] })).toEqual([{ path: 'all.0.op', message: 'must be one of eq, neq, in, nin for platform' }]);
    expect(problemsOf({ any: [{ field: 'attributes.seen', op: 'withinHours', value: 2 }] })[0]).toMatchObject({ path: 'any.0.op' });
    expect(problemAt({ any: [{ field: 'subscribed', op: 'exists' }] })).toEqual(['any.0.op']);
    expect(problemAt({ any: [{ field: 'clientUserId' }] })).toEqual(['any.0.op']);
  });

  it('refuses an op named like an Object.prototype property (once a thrown error, a 500)', () => {
    for (const op of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(problemsOf({ all: [{ field: 'platform', op, value: 'ios' }] })).toEqual([{ path: 'all.0.op', message: 'must be one of eq, neq, in, nin for platform' }]);
    }
  });

  it('checks the value against the field and the op', () => {
    expect(problemAt({ all: [{ field: 'platform', op: 'eq', value: 'windows' }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'platform', op: 'in', value: ['ios', 'bb'] }] })).toEqual(['all.0.value.1']);
    expect(problemAt({ all: [{ field: 'subscribed', op: 'eq', value: 'true' }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'locale', op: 'eq', value: 'not a locale' }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'lastSeenAt', op: 'lt', value: '2026-01-02' }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'lastSeenAt', op: 'withinHours', value: 0 }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'lastSeenAt', op: 'withinHours', value: '24' }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'attributes.a', op: 'eq', value: { nested: true } }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'attributes.a', op: 'eq' }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'attributes.a', op: 'gt', value: true }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'attributes.a', op: 'in', value: [] }] })).toEqual(['all.0.value']);
    expect(problemAt({ all: [{ field: 'attributes.a', op: 'in', value: Array(maxListValues + 1).fill(1) }] })).toEqual(['all.0.value']);
    expect(problemsOf({ all: [{ field: 'attributes.a', op: 'exists', value: true }] })).toEqual([{ path: 'all.0.value', message: 'must be left out for exists and notExists' }]);
    expect(problemAt({ all: [{ field: 'platform', op: 'eq', value: 'ios', extra: 1 }] })).toEqual(['all.0']);
  });

  it('reports every bad condition, not only the first', () => {
    expect(problemAt({ any: [{ field: 'platform', op: 'eq', value: 'x' }, { field: 'nope', op: 'eq', value: 1 }, { all: 'no' }] })).toEqual([
      'any.0.value',
      'any.1.field',
      'any.2.all',
    ]);
  });

  it('bounds the groups: one key each, depth, size and parts', () => {
    expect(problemAt({ all: [], any: [] })).toEqual(['']);
    expect(problemAt({ any: [] })).toEqual(['any']);
    expect(problemAt({ all: Array(maxGroupParts + 1).fill({ field: 'platform', op: 'eq', value: 'ios' }) })).toEqual(['all']);
    let deep: unknown = { field: 'platform', op: 'eq', value: 'web' };
    for (let level = 0; level <= maxRuleDepth; level++) deep = { all: [deep] };
    expect(problemsOf(deep)).toEqual([{ path: Array(maxRuleDepth).fill('all.0').join('.'), message: `groups nest at most ${maxRuleDepth} deep` }]);
    const leaves = Array(maxGroupParts).fill({ field: 'platform', op: 'eq', value: 'ios' });
    expect(problemsOf({ all: [{ all: leaves }, { all: leaves }] })).toEqual([{ path: 'all.1.all.47', message: `a segment has at most ${maxRuleParts} parts (conditions and groups)` }]);
  });
});
