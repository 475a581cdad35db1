import { z } from 'zod';
import { fieldMaxLength, fieldRule, isField } from './context-fields.ts';
import { conditionOperators, type Condition } from './evaluate-condition.ts';

// The zod side of conditions. A condition is a leaf `{ field, op, value }` or a group `{ all: [...] }`,
// `{ any: [...] }`, `{ not: ... }`. Groups are told apart by their key, not by trying every shape, so an error
// names the real problem ("op: must be one of …") instead of zod's "Invalid input" for a failed union; and the
// walk is bounded, so a deeply nested body cannot exhaust the stack.

/** Groups nest at most this deep: a leaf sits inside at most 5 groups. */
export const maxConditionDepth = 5;
/** Leaves and groups together, in one condition. */
export const maxConditionParts = 100;
/** Parts of one all/any group. */
export const maxGroupParts = 50;
/** Values of one in/nin list. */
export const maxListValues = 100;
export const maxStringValueLength = 1000;

const field = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .max(fieldMaxLength, { error: `must be at most ${fieldMaxLength} characters`, abort: true })
  .refine(isField, fieldRule);
const stringValue = z.string().max(maxStringValueLength, `must be at most ${maxStringValueLength} characters`);
const scalar = z.union([stringValue, z.number(), z.boolean()], { error: 'must be a string, a number or a boolean' });
const ordered = z.union([stringValue, z.number()], { error: 'must be a number or a string' });
const absent = z.never({ error: 'must be left out for exists and notExists' }).optional();

const leafSchema = z.discriminatedUnion(
  'op',
  [
    z.strictObject({ field, op: z.literal(['eq', 'neq', 'contains']), value: scalar }),
    z.strictObject({ field, op: z.literal(['gt', 'gte', 'lt', 'lte']), value: ordered }),
    z.strictObject({
      field,
      op: z.literal(['in', 'nin']),
      value: z
        .array(scalar, { error: 'must be an array of strings, numbers or booleans' })
        .min(1, 'must list at least one value')
        .max(maxListValues, `must list at most ${maxListValues} values`),
    }),
    z.strictObject({ field, op: z.literal(['exists', 'notExists']), value: absent }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${conditionOperators.join(', ')}` : undefined) },
);

const groupKeys = ['all', 'any', 'not'] as const;
const shapeRule = 'must be a condition: { field, op, value }, or a group { all: [...] }, { any: [...] } or { not: {...} }';

interface Problem {
  path: (string | number)[];
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function checkCondition(value: unknown, path: (string | number)[], groupsAbove: number, parts: { count: number }, problems: Problem[]): void {
  if (!isObject(value)) {
    problems.push({ path, message: shapeRule });
    return;
  }
  if (++parts.count > maxConditionParts) {
    if (parts.count === maxConditionParts + 1) problems.push({ path, message: `a condition has at most ${maxConditionParts} parts (leaves and groups)` });
    return;
  }
  const group = groupKeys.find((key) => Object.hasOwn(value, key));
  if (!group) {
    const result = leafSchema.safeParse(value);
    for (const issue of result.error?.issues ?? []) problems.push({ path: [...path, ...(issue.path as (string | number)[])], message: issue.message });
    return;
  }
  const others = Object.keys(value).filter((key) => key !== group);
  if (others.length > 0) problems.push({ path, message: `a group has only the key "${group}"; unexpected: ${others.map((key) => `"${key}"`).join(', ')}` });
  if (groupsAbove >= maxConditionDepth) {
    problems.push({ path, message: `groups nest at most ${maxConditionDepth} deep` });
    return;
  }
  const inner = value[group];
  if (group === 'not') {
    checkCondition(inner, [...path, 'not'], groupsAbove + 1, parts, problems);
    return;
  }
  if (!Array.isArray(inner) || inner.length === 0 || inner.length > maxGroupParts) {
    problems.push({ path: [...path, group], message: `must be an array of 1 to ${maxGroupParts} conditions` });
    return;
  }
  inner.forEach((part, index) => checkCondition(part, [...path, group, index], groupsAbove + 1, parts, problems));
}

const conditionRef = { $ref: '#/components/schemas/Condition' };

/**
 * One condition, checked by the walk above. Typed as a Condition because the walk accepts nothing else; the OpenAPI
 * document gets its shape from `override` (zod-openapi refuses z.custom, so this refines z.unknown).
 */
export const conditionSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    const problems: Problem[] = [];
    checkCondition(value, [], 0, { count: 0 }, problems);
    for (const problem of problems) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message, input: value });
  })
  .meta({
    id: 'Condition',
    description: `A leaf { field, op, value } or a group. Fields: ${fieldRule.replace(/^must be /, '')}. Groups nest at most ${maxConditionDepth} deep.`,
    override: {
      oneOf: [
        {
          type: 'object',
          required: ['field', 'op'],
          additionalProperties: false,
          properties: {
            field: { type: 'string', maxLength: fieldMaxLength, examples: ['visitor.attributes.plan'] },
            op: { type: 'string', enum: [...conditionOperators] },
            value: {
              description: 'An array for in and nin, left out for exists and notExists, a string, number or boolean otherwise.',
            },
          },
        },
        { type: 'object', required: ['all'], additionalProperties: false, properties: { all: { type: 'array', minItems: 1, maxItems: maxGroupParts, items: conditionRef } } },
        { type: 'object', required: ['any'], additionalProperties: false, properties: { any: { type: 'array', minItems: 1, maxItems: maxGroupParts, items: conditionRef } } },
        { type: 'object', required: ['not'], additionalProperties: false, properties: { not: conditionRef } },
      ],
    },
  }) as unknown as z.ZodType<Condition>;

/** Conditions that may be left out or null (trigger, goals, waitForEvent): both mean "always". */
export const optionalConditionSchema = conditionSchema.nullable().default(null);
