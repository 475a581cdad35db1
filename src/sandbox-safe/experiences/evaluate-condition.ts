import { readField, type ExperienceContext } from './context-fields.ts';

// Conditions of an experience: on its trigger, its goals, its condition nodes and its waitForEvent nodes.
// Pure TypeScript (no zod, no Node APIs): the experience workflow imports it at run time.
//
// Semantics (docs/spec-decisions.md, "Conditions and templates"). "Missing" is a field that is absent or null: the two behave alike.
// - eq: the field is a string, number or boolean strictly equal to the value (no coercion: "1" is not 1).
// - gt, gte, lt, lte: true only when both sides are numbers, or both are strings (compared by UTF-16 code units, so
//   ISO-8601 dates in the same form compare by time); any other pairing is false.
// - in: the field is a scalar strictly equal to one of the listed values.
// - contains: a string field contains the value as a substring (the value must then be a string; case-sensitive),
//   or an array field has an element strictly equal to the value. Anything else is false.
// - exists: the field is present and not null.
// - neq, nin and notExists are exactly the negations of eq, in and exists: a missing field is neq anything, nin any
//   list, and notExists.
// - Groups: all (every part holds; checked in order, stops at the first false), any (some part holds), not.

export const conditionOperators = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'contains', 'exists', 'notExists'] as const;
export type ConditionOperator = (typeof conditionOperators)[number];

export type Scalar = string | number | boolean;

export type ConditionLeaf =
  | { field: string; op: 'eq' | 'neq' | 'contains'; value: Scalar }
  | { field: string; op: 'gt' | 'gte' | 'lt' | 'lte'; value: number | string }
  | { field: string; op: 'in' | 'nin'; value: Scalar[] }
  | { field: string; op: 'exists' | 'notExists' };

export type ConditionGroup = { all: Condition[] } | { any: Condition[] } | { not: Condition };

export type Condition = ConditionLeaf | ConditionGroup;

const isScalar = (value: unknown): value is Scalar => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

function compare(actual: unknown, expected: number | string): number | undefined {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  if (typeof actual === 'string' && typeof expected === 'string') return actual < expected ? -1 : actual > expected ? 1 : 0;
  return undefined;
}

function holds(leaf: ConditionLeaf, actual: unknown): boolean {
  switch (leaf.op) {
    case 'eq':
      return isScalar(actual) && actual === leaf.value;
    case 'neq':
      return !(isScalar(actual) && actual === leaf.value);
    case 'gt':
      return (compare(actual, leaf.value) ?? 0) > 0;
    case 'gte':
      return (compare(actual, leaf.value) ?? -1) >= 0;
    case 'lt':
      return (compare(actual, leaf.value) ?? 0) < 0;
    case 'lte':
      return (compare(actual, leaf.value) ?? 1) <= 0;
    case 'in':
      return isScalar(actual) && leaf.value.includes(actual);
    case 'nin':
      return !(isScalar(actual) && leaf.value.includes(actual));
    case 'contains':
      if (typeof actual === 'string') return typeof leaf.value === 'string' && actual.includes(leaf.value);
      return Array.isArray(actual) && actual.includes(leaf.value);
    case 'exists':
      return actual != null;
    case 'notExists':
      return actual == null;
  }
}

export function evaluateCondition(condition: Condition, context: ExperienceContext): boolean {
  if ('all' in condition) return condition.all.every((part) => evaluateCondition(part, context));
  if ('any' in condition) return condition.any.some((part) => evaluateCondition(part, context));
  if ('not' in condition) return !evaluateCondition(condition.not, context);
  return holds(condition, readField(context, condition.field));
}

/** Optional conditions (a trigger's, a goal's, a waitForEvent's): none, or null, always hold. */
export const conditionsMet = (conditions: Condition | null | undefined, context: ExperienceContext): boolean =>
  conditions == null || evaluateCondition(conditions, context);
