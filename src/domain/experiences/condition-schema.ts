import { z } from 'zod';
import { withoutLooserBounds } from '../errors.ts';
import { fieldMaxLength, fieldRule, isField } from '../../sandbox-safe/experiences/context-fields.ts';
import { conditionOperators, type Condition, type ConditionOperator } from '../../sandbox-safe/experiences/evaluate-condition.ts';
import {
  componentRef,
  defineConditionLanguage,
  leafShape,
  maxGroupDepth,
  maxParts,
  scalarFieldValues,
  scalarValue,
  type Path,
  type ValueRules,
} from '../conditions/condition-language.ts';

// The zod side of experience conditions: a leaf `{ field, op, value }` or a group `{ all: [...] }`, `{ any: [...] }`,
// `{ not: ... }`, walked by the shared condition language (src/domain/conditions/). What is the experiences' own: the
// fields (context-fields.ts), the operators (contains besides the shared ones) and the leaf check below.

export { maxGroupParts, maxListValues, maxStringValueLength } from '../conditions/condition-language.ts';
/** Groups nest at most this deep: a leaf sits inside at most 5 groups. */
export const maxConditionDepth = maxGroupDepth;
/** Leaves and groups together, in one condition. */
export const maxConditionParts = maxParts;

const field = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .max(fieldMaxLength, { error: `must be at most ${fieldMaxLength} characters`, abort: true })
  .refine(isField, fieldRule);

/** Every field may hold any scalar, so each op takes the same value whatever the field. */
const valueRules: Required<ValueRules<ConditionOperator>> = { ...scalarFieldValues, contains: scalarValue };

// Told apart by op, so a bad op is one problem ("op: must be one of …") and a good one checks field and value.
const leafOf = (op: ConditionOperator) => z.strictObject({ field, op: z.literal(op), value: valueRules[op] });
const leafSchema = z.discriminatedUnion(
  'op',
  conditionOperators.map(leafOf) as [ReturnType<typeof leafOf>, ...ReturnType<typeof leafOf>[]],
  { error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${conditionOperators.join(', ')}` : undefined) },
);

const conditions = defineConditionLanguage({
  groups: ['all', 'any', 'not'],
  fewestInAll: 1,
  shapeRule: 'must be a condition: { field, op, value }, or a group { all: [...] }, { any: [...] } or { not: {...} }',
  words: { whole: 'condition', leaves: 'leaves', parts: 'conditions' },
  checkLeaf: (value, path, problems) => {
    const result = leafSchema.safeParse(value);
    for (const issue of withoutLooserBounds(result.error?.issues ?? [])) problems.push({ path: [...path, ...(issue.path as Path)], message: issue.message });
    return result.success ? (value as Condition) : undefined;
  },
});

/** One condition, checked by the shared walk; its OpenAPI shape is written out by hand. */
export const conditionSchema = conditions.schema<Condition>({
  id: 'Condition',
  description: `A leaf { field, op, value } or a group. Fields: ${fieldRule.replace(/^must be /, '')}. Groups nest at most ${maxConditionDepth} deep.`,
  override: {
    oneOf: [
      leafShape({
        maxFieldLength: fieldMaxLength,
        examples: ['visitor.attributes.plan'],
        operators: conditionOperators,
        valueDescription: 'An array for in and nin, left out for exists and notExists, a string, number or boolean otherwise.',
      }),
      ...conditions.groupShapes(componentRef('Condition')),
    ],
  },
});

/** Conditions that may be left out or null (trigger, goals, waitForEvent): both mean "always". */
export const optionalConditionSchema = conditionSchema.nullable().default(null);
