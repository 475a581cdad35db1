// The rules of a segment (the spec's `filterId`): a group `{ all: [...] }` or `{ any: [...] }` of conditions
// `{ field, op, value }` and nested groups. Validated by rules-schema.ts, compiled to SQL by segment-condition.ts.
// Semantics are those of experience conditions (docs/spec-decisions.md, "Segment rules"): a missing attribute and a null one behave alike, eq is
// strict ("1" is not 1), neq, nin and notExists are the exact negations of eq, in and exists.

export type Scalar = string | number | boolean;

export const segmentOperators = [
  'eq',
  'neq',
  'in',
  'nin',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'notExists',
  'withinHours',
  'olderThanHours',
] as const;
export type SegmentOperator = (typeof segmentOperators)[number];

export type SegmentCondition =
  | { field: string; op: 'eq' | 'neq'; value: Scalar }
  | { field: string; op: 'in' | 'nin'; value: Scalar[] }
  | { field: string; op: 'gt' | 'gte' | 'lt' | 'lte'; value: string | number }
  | { field: string; op: 'exists' | 'notExists' }
  | { field: string; op: 'withinHours' | 'olderThanHours'; value: number };

export type SegmentRules = { all: SegmentRule[] } | { any: SegmentRule[] };
export type SegmentRule = SegmentCondition | SegmentRules;

export const isGroup = (rule: SegmentRule): rule is SegmentRules => 'all' in rule || 'any' in rule;

/** The device columns a rule may name, by their API name. */
export const columnFields = ['platform', 'subscribed', 'clientUserId', 'locale', 'lastSeenAt'] as const;
export type ColumnField = (typeof columnFields)[number];

export type FieldRef = { kind: 'column'; name: ColumnField } | { kind: 'attribute'; path: string[] };

/** `attributes.` then 1 to this many keys, separated by dots. */
export const maxAttributePathSteps = 5;
export const maxFieldLength = 300;

/** The rule, worded for error messages. */
export const fieldRule = `must be ${columnFields.join(', ')}, or attributes.<key> (up to ${maxAttributePathSteps} keys separated by dots, e.g. attributes.address.country)`;

// A key is any run of characters other than ".", whitespace, "{", "}", "[" and "]" (as in experience conditions), so that
// "$plan" or "plan-name" work. Each step names an object key; a numeric step does not index an array.
const attributePattern = new RegExp(`^attributes((?:\\.[^.\\s{}[\\]]+){1,${maxAttributePathSteps}})$`);

/** The field's parts, or undefined when it is not a field rules may name. */
export function parseSegmentField(field: string): FieldRef | undefined {
  if (field.length > maxFieldLength) return undefined;
  if ((columnFields as readonly string[]).includes(field)) return { kind: 'column', name: field as ColumnField };
  const match = attributePattern.exec(field);
  return match ? { kind: 'attribute', path: match[1]!.slice(1).split('.') } : undefined;
}
