import { describe, expect, it } from 'vitest';
import { readField, type ExperienceContext } from '../../../src/sandbox-safe/experiences/context-fields.ts';
import { conditionsMet, evaluateCondition, type Condition, type ConditionLeaf } from '../../../src/sandbox-safe/experiences/evaluate-condition.ts';

const context: ExperienceContext = {
  event: {
    eventType: 'purchase',
    attributes: {
      plan: 'pro',
      amount: 42,
      count: '10',
      paid: true,
      nothing: null,
      tags: ['a', 'b', 3, true],
      nested: { x: { y: 'deep' } },
      items: [{ sku: 'S1' }, { sku: 'S2' }],
      at: '2026-03-01T10:00:00Z',
      $email: 'a@example.com',
    },
  },
  trigger: { eventType: 'signup', attributes: { source: 'ads' } },
  visitor: { clientUserId: 'u-1', attributes: { country: 'DE' } },
};

const leaf = (field: string, op: ConditionLeaf['op'], value?: unknown) => ({ field, op, ...(value === undefined ? {} : { value }) }) as ConditionLeaf;

describe('readField', () => {
  it.each([
    ['event.eventType', 'purchase'],
    ['trigger.eventType', 'signup'],
    ['visitor.clientUserId', 'u-1'],
    ['event.attributes.plan', 'pro'],
    ['event.attributes.nested.x.y', 'deep'],
    ['event.attributes.items.1.sku', 'S2'],
    ['event.attributes.tags.0', 'a'],
    ['event.attributes.$email', 'a@example.com'],
    ['trigger.attributes.source', 'ads'],
    ['visitor.attributes.country', 'DE'],
    ['visitor.attributes', { country: 'DE' }],
    ['event.attributes.nothing', null],
    ['event.attributes.missing', undefined],
    ['event.attributes.items.9.sku', undefined],
    ['event.attributes.items.first', undefined],
    ['event.attributes.plan.length', undefined],
    ['event.attributes.constructor', undefined],
    ['event.attributes.__proto__', undefined],
    ['visitor.email', undefined],
  ])('%s reads %o', (field, value) => {
    expect(readField(context, field)).toEqual(value);
  });

  it('reads missing when the context has no such event or visitor', () => {
    expect(readField({}, 'event.eventType')).toBeUndefined();
    expect(readField({ visitor: null }, 'visitor.clientUserId')).toBeUndefined();
    expect(readField({ visitor: { clientUserId: null, attributes: {} } }, 'visitor.clientUserId')).toBeNull();
  });
});

describe('evaluateCondition: leaves', () => {
  it.each([
    // eq: strict equality of scalars, no coercion
    ['event.attributes.plan', 'eq', 'pro', true],
    ['event.attributes.plan', 'eq', 'Pro', false],
    ['event.attributes.amount', 'eq', 42, true],
    ['event.attributes.amount', 'eq', '42', false],
    ['event.attributes.count', 'eq', 10, false],
    ['event.attributes.paid', 'eq', true, true],
    ['event.attributes.paid', 'eq', 'true', false],
    ['event.attributes.tags', 'eq', 'a', false],
    ['event.attributes.nested', 'eq', 'deep', false],
    ['event.attributes.missing', 'eq', 'pro', false],
    ['event.attributes.nothing', 'eq', 'pro', false],
    ['event.eventType', 'eq', 'purchase', true],
    ['visitor.clientUserId', 'eq', 'u-1', true],
    // neq: the negation of eq, so a missing field is neq anything
    ['event.attributes.plan', 'neq', 'pro', false],
    ['event.attributes.plan', 'neq', 'basic', true],
    ['event.attributes.amount', 'neq', '42', true],
    ['event.attributes.missing', 'neq', 'pro', true],
    ['event.attributes.nothing', 'neq', 'pro', true],
    ['event.attributes.tags', 'neq', 'a', true],
    // gt, gte, lt, lte: numbers with numbers, strings with strings, else false
    ['event.attributes.amount', 'gt', 41, true],
    ['event.attributes.amount', 'gt', 42, false],
    ['event.attributes.amount', 'gte', 42, true],
    ['event.attributes.amount', 'gte', 43, false],
    ['event.attributes.amount', 'lt', 43, true],
    ['event.attributes.amount', 'lt', 42, false],
    ['event.attributes.amount', 'lte', 42, true],
    ['event.attributes.amount', 'lte', 41.5, false],
    ['event.attributes.at', 'gt', '2026-02-28T23:59:59Z', true],
    ['event.attributes.at', 'lt', '2026-02-28T23:59:59Z', false],
    ['event.attributes.at', 'gte', '2026-03-01T10:00:00Z', true],
    ['event.attributes.at', 'lte', '2026-03-01T10:00:00Z', true],
    ['event.attributes.plan', 'gt', 'basic', true],
    ['event.attributes.count', 'gt', 9, false],
    ['event.attributes.count', 'lt', 9, false],
    ['event.attributes.count', 'gte', 9, false],
    ['event.attributes.count', 'lte', 11, false],
    ['event.attributes.amount', 'gt', '41', false],
    ['event.attributes.amount', 'lte', '43', false],
    ['event.attributes.paid', 'gt', 0, false],
    ['event.attributes.missing', 'gt', 0, false],
    ['event.attributes.missing', 'gte', 0, false],
    ['event.attributes.missing', 'lt', 0, false],
    ['event.attributes.missing', 'lte', 0, false],
    ['event.attributes.nothing', 'lte', 0, false],
    // in, nin: membership of a scalar, strictly
    ['event.attributes.plan', 'in', ['basic', 'pro'], true],
    ['event.attributes.plan', 'in', ['basic'], false],
    ['event.attributes.amount', 'in', ['42'], false],
    ['event.attributes.amount', 'in', [42], true],
    ['event.attributes.tags', 'in', ['a'], false],
    ['event.attributes.missing', 'in', ['pro'], false],
    ['event.attributes.plan', 'nin', ['basic'], true],
    ['event.attributes.plan', 'nin', ['pro'], false],
    ['event.attributes.amount', 'nin', ['42'], true],
    ['event.attributes.missing', 'nin', ['pro'], true],
    ['event.attributes.nothing', 'nin', ['pro'], true],
    ['visitor.attributes.country', 'in', ['DE', 'AT'], true],
    // contains: substring of a string, element of an array
    ['event.attributes.plan', 'contains', 'r', true],
    ['event.attributes.plan', 'contains', 'R', false],
    ['event.attributes.plan', 'contains', 'pro', true],
    ['event.attributes.plan', 'contains', 'prof', false],
    ['event.attributes.tags', 'contains', 'b', true],
    ['event.attributes.tags', 'contains', 3, true],
    ['event.attributes.tags', 'contains', '3', false],
    ['event.attributes.tags', 'contains', true, true],
    ['event.attributes.tags', 'contains', 'c', false],
    ['event.attributes.amount', 'contains', 4, false],
    ['event.attributes.amount', 'contains', '4', false],
    ['event.attributes.nested', 'contains', 'x', false],
    ['event.attributes.missing', 'contains', 'a', false],
    // exists, notExists: present and not null
    ['event.attributes.plan', 'exists', undefined, true],
    ['event.attributes.paid', 'exists', undefined, true],
    ['event.attributes.tags', 'exists', undefined, true],
    ['event.attributes.nothing', 'exists', undefined, false],
    ['event.attributes.missing', 'exists', undefined, false],
    ['event.attributes.plan', 'notExists', undefined, false],
    ['event.attributes.nothing', 'notExists', undefined, true],
    ['event.attributes.missing', 'notExists', undefined, true],
  ] as const)('%s %s %o is %s', (field, op, value, expected) => {
    expect(evaluateCondition(leaf(field, op, value), context)).toBe(expected);
  });

  it('treats a missing visitor or event as missing fields', () => {
    const empty: ExperienceContext = { visitor: null };
    expect(evaluateCondition(leaf('visitor.clientUserId', 'exists'), empty)).toBe(false);
    expect(evaluateCondition(leaf('visitor.attributes.country', 'neq', 'DE'), empty)).toBe(true);
    expect(evaluateCondition(leaf('event.eventType', 'eq', 'purchase'), empty)).toBe(false);
    expect(evaluateCondition(leaf('trigger.attributes.source', 'notExists'), empty)).toBe(true);
  });
});

describe('evaluateCondition: groups', () => {
  const yes = leaf('event.attributes.plan', 'eq', 'pro');
  const no = leaf('event.attributes.plan', 'eq', 'basic');
  it.each([
    ['all of true, true', { all: [yes, yes] }, true],
    ['all of true, false', { all: [yes, no] }, false],
    ['any of false, true', { any: [no, yes] }, true],
    ['any of false, false', { any: [no, no] }, false],
    ['not true', { not: yes }, false],
    ['not false', { not: no }, true],
    ['nested groups', { all: [{ any: [no, { not: no }] }, { not: { all: [yes, no] } }] }, true],
  ] as const)('%s is %s', (_, condition, expected) => {
    expect(evaluateCondition(condition as Condition, context)).toBe(expected);
  });

  it('holds absent or null optional conditions', () => {
    expect(conditionsMet(null, context)).toBe(true);
    expect(conditionsMet(undefined, context)).toBe(true);
    expect(conditionsMet(leaf('event.attributes.plan', 'eq', 'basic'), context)).toBe(false);
  });
});
