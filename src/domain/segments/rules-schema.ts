import { z } from 'zod';
import { withoutLooserBounds } from '../errors.ts';
import { platforms } from '../../persistence/entities/device.ts';
import {
  absentValue,
  componentRef,
  defineConditionLanguage,
  leafShape,
  listOf,
  maxGroupDepth,
  maxParts,
  scalarFieldValues,
  type Path,
  type Problem,
  type ValueRules,
} from '../conditions/condition-language.ts';
import { localeSchema } from '../devices/locale.ts';
import { fieldRule, maxFieldLength, parseSegmentField, segmentOperators, type ColumnField, type SegmentOperator, type SegmentRule, type SegmentRules } from './segment-rules.ts';

// The zod side of segment rules, walked by the shared condition language (src/domain/conditions/): the root is a
// group, an empty all holds for every device, and there is no not. What is the segments' own: the fields
// (segment-rules.ts) and, for each, the ops it allows and the value each op takes, checked below.

export { maxGroupParts, maxListValues, maxStringValueLength } from '../conditions/condition-language.ts';
/** Groups nest at most this deep: a condition sits inside at most 5 groups (the root counts). */
export const maxRuleDepth = maxGroupDepth;
/** Conditions and groups together, in one segment. */
export const maxRuleParts = maxParts;
/** withinHours and olderThanHours: ten years at most. */
export const maxHours = 87_600;

const hours = z.number({ error: 'must be a number of hours' }).positive('must be more than 0').max(maxHours, `must be at most ${maxHours}`);
const instant = z.iso.datetime({ offset: true, error: 'must be an ISO-8601 date-time with an offset, e.g. 2026-01-02T03:04:05Z' });

const sameValue = (ops: SegmentOperator[], value: z.ZodType): ValueRules<SegmentOperator> => Object.fromEntries(ops.map((op) => [op, value]));

const textColumn = (value: z.ZodType, what: string): ValueRules<SegmentOperator> => ({
  ...sameValue(['eq', 'neq'], value),
  ...sameValue(['in', 'nin'], listOf(value, what)),
  ...sameValue(['exists', 'notExists'], absentValue),
});

const platform = z.enum(platforms, { error: `must be one of ${platforms.join(', ')}` });

/** For each field, what each allowed op takes as its value. */
const valueRules: Record<ColumnField | 'attribute', ValueRules<SegmentOperator>> = {
  platform: { ...sameValue(['eq', 'neq'], platform), ...sameValue(['in', 'nin'], listOf(platform, platforms.join(', '))) },
  subscribed: sameValue(['eq', 'neq'], z.boolean({ error: 'must be true or false' })),
  clientUserId: textColumn(z.string({ error: 'must be a string' }).min(1).max(255), 'strings'),
  locale: textColumn(localeSchema, 'language tags'),
  lastSeenAt: { ...sameValue(['gt', 'gte', 'lt', 'lte'], instant), ...sameValue(['withinHours', 'olderThanHours'], hours) },
  attribute: scalarFieldValues,
};

/** The field, then the op the field allows, then the value the op takes: each problem at its place. */
function checkCondition(value: Record<string, unknown>, path: Path, problems: Problem[]): SegmentRule | undefined {
  const field = value.field;
  const ref = typeof field === 'string' ? parseSegmentField(field) : undefined;
  if (!ref) {
    problems.push({ path: [...path, 'field'], message: field === undefined ? 'is required' : fieldRule });
    return undefined;
  }
  const rules = valueRules[ref.kind === 'column' ? ref.name : 'attribute'];
  const allowed = segmentOperators.filter((op) => rules[op] !== undefined);
  const op = value.op;
  const valueRule = typeof op === 'string' && Object.hasOwn(rules, op) ? rules[op as SegmentOperator] : undefined;
  if (!valueRule) {
    problems.push({ path: [...path, 'op'], message: `must be one of ${allowed.join(', ')} for ${ref.kind === 'column' ? ref.name : 'attributes'}` });
    return undefined;
  }
  const result = z.strictObject({ field: z.string(), op: z.string(), value: valueRule }).safeParse(value);
  if (!result.success) {
    for (const issue of withoutLooserBounds(result.error.issues)) problems.push({ path: [...path, ...(issue.path as Path)], message: issue.message });
    return undefined;
  }
  return result.data as SegmentRule;
}

const rules = defineConditionLanguage({
  groups: ['all', 'any'],
  fewestInAll: 0,
  rootGroupRule: 'must be a group { all: [...] } or { any: [...] }',
  shapeRule: 'must be a condition { field, op, value } or a group { all: [...] } or { any: [...] }',
  words: { whole: 'segment', leaves: 'conditions', parts: 'conditions or groups' },
  checkLeaf: checkCondition,
});

const conditionShape = leafShape({
  maxFieldLength,
  examples: ['platform', 'lastSeenAt', 'attributes.plan'],
  operators: segmentOperators,
  valueDescription: 'An array for in and nin, left out for exists and notExists, hours for withinHours and olderThanHours.',
});

/**
 * A segment's rules as the shared walk accepts them; the OpenAPI shape is written out by hand. Answers use this
 * schema; requests use the next.
 */
export const segmentRulesShape = rules.schema<SegmentRules>({
  id: 'SegmentRules',
  description:
    `A group { all: [...] } (every part holds; an empty all holds for every device) or { any: [...] } (some part holds) of ` +
    `conditions and groups. Groups nest at most ${maxRuleDepth} deep, ${maxRuleParts} parts in all. Fields: ${fieldRule.replace(/^must be /, '')}.`,
  override: { oneOf: rules.groupShapes({ oneOf: [conditionShape, componentRef('SegmentRules')] }) },
});

/** The rules of a request: checked, then as checked (locales in canonical form). */
export const segmentRulesSchema = segmentRulesShape.transform((value) => rules.check(value).checked as SegmentRules);
