import { z } from 'zod';
import { platforms } from '../../persistence/entities/device.ts';
import { localeSchema } from '../devices/locale.ts';
import {
  fieldRule,
  maxFieldLength,
  parseSegmentField,
  segmentOperators,
  type ColumnField,
  type SegmentOperator,
  type SegmentRule,
  type SegmentRules,
} from './segment-rules.ts';

// The zod side of segment rules. Groups are told apart by their key and the walk is bounded (as for flow
// conditions), so a problem is named at its place ("body.rules.any.1.op: must be one of …") and a deep or huge body
// cannot exhaust the stack. Each condition is checked against what its field allows: the ops, and the value's type.

/** Groups nest at most this deep: a condition sits inside at most 5 groups (the root counts). */
export const maxRuleDepth = 5;
/** Conditions and groups together, in one segment. */
export const maxRuleParts = 100;
/** Parts of one all/any group. */
export const maxGroupParts = 50;
/** Values of one in/nin list. */
export const maxListValues = 100;
export const maxStringValueLength = 1000;
/** withinHours and olderThanHours: ten years at most. */
export const maxHours = 87_600;

const stringValue = z.string().max(maxStringValueLength, `must be at most ${maxStringValueLength} characters`);
const scalar = z.union([stringValue, z.number(), z.boolean()], { error: 'must be a string, a number or a boolean' });
const ordered = z.union([stringValue, z.number()], { error: 'must be a number or a string' });
const list = <T extends z.ZodType>(item: T, what: string) =>
  z
    .array(item, { error: `must be an array of ${what}` })
    .min(1, 'must list at least one value')
    .max(maxListValues, `must list at most ${maxListValues} values`);
const absent = z.never({ error: 'must be left out for exists and notExists' }).optional();
const hours = z.number({ error: 'must be a number of hours' }).positive('must be more than 0').max(maxHours, `must be at most ${maxHours}`);
const instant = z.iso.datetime({ offset: true, error: 'must be an ISO-8601 date-time with an offset, e.g. 2026-01-02T03:04:05Z' });

/** For each field, what each allowed op takes as its value. */
type ValueRules = Partial<Record<SegmentOperator, z.ZodType>>;

const sameValue = (ops: SegmentOperator[], value: z.ZodType): ValueRules => Object.fromEntries(ops.map((op) => [op, value]));

const textColumn = (value: z.ZodType, what: string): ValueRules => ({
  ...sameValue(['eq', 'neq'], value),
  ...sameValue(['in', 'nin'], list(value, what)),
  ...sameValue(['exists', 'notExists'], absent),
});

const valueRules: Record<ColumnField | 'attribute', ValueRules> = {
  platform: {
    ...sameValue(['eq', 'neq'], z.enum(platforms, { error: `must be one of ${platforms.join(', ')}` })),
    ...sameValue(['in', 'nin'], list(z.enum(platforms, { error: `must be one of ${platforms.join(', ')}` }), platforms.join(', '))),
  },
  subscribed: sameValue(['eq', 'neq'], z.boolean({ error: 'must be true or false' })),
  clientUserId: textColumn(z.string({ error: 'must be a string' }).min(1).max(255), 'strings'),
  locale: textColumn(localeSchema, 'language tags'),
  lastSeenAt: { ...sameValue(['gt', 'gte', 'lt', 'lte'], instant), ...sameValue(['withinHours', 'olderThanHours'], hours) },
  attribute: {
    ...sameValue(['eq', 'neq'], scalar),
    ...sameValue(['in', 'nin'], list(scalar, 'strings, numbers or booleans')),
    ...sameValue(['gt', 'gte', 'lt', 'lte'], ordered),
    ...sameValue(['exists', 'notExists'], absent),
  },
};

interface Problem {
  path: (string | number)[];
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const groupKeys = ['all', 'any'] as const;
const shapeRule = 'must be a condition { field, op, value } or a group { all: [...] } or { any: [...] }';

function checkCondition(value: Record<string, unknown>, path: (string | number)[], problems: Problem[]): SegmentRule | undefined {
  const field = value.field;
  const ref = typeof field === 'string' ? parseSegmentField(field) : undefined;
  if (!ref) {
    problems.push({ path: [...path, 'field'], message: field === undefined ? 'is required' : fieldRule });
    return undefined;
  }
  const rules = valueRules[ref.kind === 'column' ? ref.name : 'attribute'];
  const allowed = segmentOperators.filter((op) => rules[op] !== undefined);
  const op = value.op;
  const valueRule = typeof op === 'string' ? rules[op as SegmentOperator] : undefined;
  if (!valueRule) {
    problems.push({ path: [...path, 'op'], message: `must be one of ${allowed.join(', ')} for ${ref.kind === 'column' ? ref.name : 'attributes'}` });
    return undefined;
  }
  const result = z.strictObject({ field: z.string(), op: z.string(), value: valueRule }).safeParse(value);
  if (!result.success) {
    for (const issue of result.error.issues) problems.push({ path: [...path, ...(issue.path as (string | number)[])], message: issue.message });
    return undefined;
  }
  return result.data as SegmentRule;
}

function checkRule(value: unknown, path: (string | number)[], groupsAbove: number, parts: { count: number }, problems: Problem[]): SegmentRule | undefined {
  if (!isObject(value)) {
    problems.push({ path, message: groupsAbove === 0 ? 'must be a group { all: [...] } or { any: [...] }' : shapeRule });
    return undefined;
  }
  if (++parts.count > maxRuleParts) {
    if (parts.count === maxRuleParts + 1) problems.push({ path, message: `a segment has at most ${maxRuleParts} parts (conditions and groups)` });
    return undefined;
  }
  const group = groupKeys.find((key) => Object.hasOwn(value, key));
  if (!group) {
    if (groupsAbove === 0) {
      problems.push({ path, message: 'must be a group { all: [...] } or { any: [...] }' });
      return undefined;
    }
    return checkCondition(value, path, problems);
  }
  const others = Object.keys(value).filter((key) => key !== group);
  if (others.length > 0) problems.push({ path, message: `a group has only the key "${group}"; unexpected: ${others.map((key) => `"${key}"`).join(', ')}` });
  if (groupsAbove >= maxRuleDepth) {
    problems.push({ path, message: `groups nest at most ${maxRuleDepth} deep` });
    return undefined;
  }
  const inner = value[group];
  const fewest = group === 'all' ? 0 : 1;
  if (!Array.isArray(inner) || inner.length < fewest || inner.length > maxGroupParts) {
    problems.push({ path: [...path, group], message: `must be an array of ${fewest} to ${maxGroupParts} conditions or groups` });
    return undefined;
  }
  const checked = inner.map((part, index) => checkRule(part, [...path, group, index], groupsAbove + 1, parts, problems));
  return (group === 'all' ? { all: checked } : { any: checked }) as SegmentRules;
}

const conditionShape = {
  type: 'object' as const,
  required: ['field', 'op'],
  additionalProperties: false,
  properties: {
    field: { type: 'string' as const, maxLength: maxFieldLength, examples: ['platform', 'lastSeenAt', 'attributes.plan'] },
    op: { type: 'string' as const, enum: [...segmentOperators] },
    value: { description: 'An array for in and nin, left out for exists and notExists, hours for withinHours and olderThanHours.' },
  },
};
const partOfGroup = { oneOf: [conditionShape, { $ref: '#/components/schemas/SegmentRules' }] };
const groupOf = (key: string, fewest: number) => ({
  type: 'object' as const,
  required: [key],
  additionalProperties: false,
  properties: { [key]: { type: 'array' as const, minItems: fewest, maxItems: maxGroupParts, items: partOfGroup } },
});

function checkRules(value: unknown): { rules: SegmentRules | undefined; problems: Problem[] } {
  const problems: Problem[] = [];
  const rules = checkRule(value, [], 0, { count: 0 }, problems) as SegmentRules | undefined;
  return { rules: problems.length === 0 ? rules : undefined, problems };
}

/**
 * A segment's rules as the walk above accepts them. The OpenAPI document gets the shape from `override`
 * (zod-openapi refuses z.custom, so this refines z.unknown). Answers use this schema; requests use the next.
 */
export const segmentRulesShape = z
  .unknown()
  .superRefine((value, ctx) => {
    for (const problem of checkRules(value).problems) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message, input: value });
  })
  .meta({
    id: 'SegmentRules',
    description:
      `A group { all: [...] } (every part holds; an empty all holds for every device) or { any: [...] } (some part holds) of ` +
      `conditions and groups. Groups nest at most ${maxRuleDepth} deep, ${maxRuleParts} parts in all. Fields: ${fieldRule.replace(/^must be /, '')}.`,
    override: { oneOf: [groupOf('all', 0), groupOf('any', 1)] },
  }) as unknown as z.ZodType<SegmentRules>;

/** The rules of a request: checked, then as checked (locales in canonical form). */
export const segmentRulesSchema = segmentRulesShape.transform((value) => checkRules(value).rules as SegmentRules);
