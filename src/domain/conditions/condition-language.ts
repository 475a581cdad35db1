import { z } from 'zod';
import type { oas31 } from 'zod-openapi';

// The condition language that segments' rules and experiences' conditions share: leaves `{ field, op, value }` inside
// groups `{ all: [...] }`, `{ any: [...] }` (and, for experiences, `{ not: ... }`), the limits, the value schemas of the
// operators both have, and the bounded walk that checks a body. Each side keeps its own field catalogue and checks
// its leaves itself (src/domain/experiences/condition-schema.ts, src/domain/segments/rules-schema.ts).
//
// Groups are told apart by their key, not by trying every shape, so an error names the real problem
// ("any.1.op: must be one of …") instead of zod's "Invalid input" for a failed union; and the walk is bounded (depth
// and parts), so a deeply nested or huge body cannot exhaust the stack.

/** Groups nest at most this deep: a leaf sits inside at most 5 groups (a root group counts). */
export const maxGroupDepth = 5;
/** Leaves and groups together, in one body. */
export const maxParts = 100;
/** Parts of one all/any group. */
export const maxGroupParts = 50;
/** Values of one in/nin list. */
export const maxListValues = 100;
export const maxStringValueLength = 1000;

// Values.

export type Scalar = string | number | boolean;

export const stringValue = z.string().max(maxStringValueLength, `must be at most ${maxStringValueLength} characters`);
export const scalarValue = z.union([stringValue, z.number(), z.boolean()], { error: 'must be a string, a number or a boolean' });
/** What gt, gte, lt and lte compare with. */
export const orderedValue = z.union([stringValue, z.number()], { error: 'must be a number or a string' });
/** The value of in and nin: 1 to maxListValues items; `what` names them in the error ("must be an array of …"). */
export const listOf = <T extends z.ZodType>(item: T, what: string) =>
  z
    .array(item, { error: `must be an array of ${what}` })
    .min(1, 'must list at least one value')
    .max(maxListValues, `must list at most ${maxListValues} values`);
/** exists and notExists take no value. */
export const absentValue = z.never({ error: 'must be left out for exists and notExists' }).optional();

// Operators.

/** The operators both languages have. Each side lists its own, in its own order (which its messages show). */
export const sharedOperators = ['eq', 'neq', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'exists', 'notExists'] as const;
export type SharedOperator = (typeof sharedOperators)[number];

/** For one field, what each operator it allows takes as its value. */
export type ValueRules<Op extends string = string> = Partial<Record<Op, z.ZodType>>;

/** The value of each shared operator on a field that may hold any scalar (an attribute). */
export const scalarFieldValues: Record<SharedOperator, z.ZodType> = {
  eq: scalarValue,
  neq: scalarValue,
  in: listOf(scalarValue, 'strings, numbers or booleans'),
  nin: listOf(scalarValue, 'strings, numbers or booleans'),
  gt: orderedValue,
  gte: orderedValue,
  lt: orderedValue,
  lte: orderedValue,
  exists: absentValue,
  notExists: absentValue,
};

// The walk.

export type Path = (string | number)[];

/** One problem of a body, at its place. */
export interface Problem {
  path: Path;
  message: string;
}

export type GroupKey = 'all' | 'any' | 'not';
/** Tried in this order: a body with two group keys is the first one's group, and the other key is unexpected. */
const groupKeyOrder: readonly GroupKey[] = ['all', 'any', 'not'];

/** A body as the walk accepted it: leaves as their checker returned them, groups rebuilt around them. */
export type Checked<Leaf> = Leaf | { all: Checked<Leaf>[] } | { any: Checked<Leaf>[] } | { not: Checked<Leaf> };

/**
 * Checks an object with no group key at `path`: returns the leaf as checked, or undefined after pushing at least
 * one problem (paths below `path`, e.g. `[...path, 'op']`).
 */
export type LeafChecker<Leaf> = (value: Record<string, unknown>, path: Path, problems: Problem[]) => Leaf | undefined;

export interface ConditionLanguageOptions<Leaf> {
  /** The group keys the language has: all and any, and not (one part, negated) for experiences. */
  groups: readonly GroupKey[];
  /** The fewest parts of an all: 0 when an empty all means something (every device), else 1. An any takes 1 or more. */
  fewestInAll: 0 | 1;
  /** Set when the root must be a group (not a leaf): the message when it is not. */
  rootGroupRule?: string | undefined;
  /** The message for a part that is not an object. */
  shapeRule: string;
  /** How the messages name things. */
  words: {
    /** The body: "a <whole> has at most 100 parts (…)". */
    whole: string;
    /** Its leaves: "(<leaves> and groups)". */
    leaves: string;
    /** What a group lists: "must be an array of 1 to 50 <parts>". */
    parts: string;
  };
  checkLeaf: LeafChecker<Leaf>;
}

/** A JSON schema, as zod-openapi takes it in `override`. */
export type JsonSchema = oas31.SchemaObject | oas31.ReferenceObject;

export interface ConditionLanguage<Leaf> {
  /** Walks a body: its problems in document order, and the body as checked when there are none. */
  check(value: unknown): { checked: Checked<Leaf> | undefined; problems: Problem[] };
  /** The OpenAPI shapes of this language's groups, in the order all, any, not; `part` is what a group holds. */
  groupShapes(part: JsonSchema): oas31.SchemaObject[];
  /**
   * A zod schema that runs the walk and reports each problem at its path, typed as T because the walk accepts
   * nothing else. The OpenAPI document gets its shape from `override` (zod-openapi refuses z.custom, so this refines
   * z.unknown).
   */
  schema<T>(openapi: { id: string; description: string; override: oas31.SchemaObject }): z.ZodType<T>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function defineConditionLanguage<Leaf>(options: ConditionLanguageOptions<Leaf>): ConditionLanguage<Leaf> {
  const { fewestInAll, rootGroupRule, shapeRule, words, checkLeaf } = options;
  const groups = groupKeyOrder.filter((key) => options.groups.includes(key));
  const fewest = (group: 'all' | 'any') => (group === 'all' ? fewestInAll : 1);

  function walk(value: unknown, path: Path, groupsAbove: number, parts: { count: number }, problems: Problem[]): Checked<Leaf> | undefined {
    const atRoot = groupsAbove === 0;
    if (!isObject(value)) {
      problems.push({ path, message: atRoot && rootGroupRule !== undefined ? rootGroupRule : shapeRule });
      return undefined;
    }
    if (++parts.count > maxParts) {
      if (parts.count === maxParts + 1) problems.push({ path, message: `a ${words.whole} has at most ${maxParts} parts (${words.leaves} and groups)` });
      return undefined;
    }
    const group = groups.find((key) => Object.hasOwn(value, key));
    if (!group) {
      if (atRoot && rootGroupRule !== undefined) {
        problems.push({ path, message: rootGroupRule });
        return undefined;
      }
      return checkLeaf(value, path, problems);
    }
    const others = Object.keys(value).filter((key) => key !== group);
    if (others.length > 0) problems.push({ path, message: `a group has only the key "${group}"; unexpected: ${others.map((key) => `"${key}"`).join(', ')}` });
    if (groupsAbove >= maxGroupDepth) {
      problems.push({ path, message: `groups nest at most ${maxGroupDepth} deep` });
      return undefined;
    }
    const inner = value[group];
    if (group === 'not') return { not: walk(inner, [...path, 'not'], groupsAbove + 1, parts, problems) as Checked<Leaf> };
    if (!Array.isArray(inner) || inner.length < fewest(group) || inner.length > maxGroupParts) {
      problems.push({ path: [...path, group], message: `must be an array of ${fewest(group)} to ${maxGroupParts} ${words.parts}` });
      return undefined;
    }
    const checked = inner.map((part, index) => walk(part, [...path, group, index], groupsAbove + 1, parts, problems) as Checked<Leaf>);
    return group === 'all' ? { all: checked } : { any: checked };
  }

  function check(value: unknown) {
    const problems: Problem[] = [];
    const checked = walk(value, [], 0, { count: 0 }, problems);
    return { checked: problems.length === 0 ? checked : undefined, problems };
  }

  return {
    check,
    groupShapes: (part) =>
      groups.map((group) => ({
        type: 'object',
        required: [group],
        additionalProperties: false,
        properties: { [group]: group === 'not' ? part : { type: 'array', minItems: fewest(group), maxItems: maxGroupParts, items: part } },
      })),
    schema: <T>(openapi: { id: string; description: string; override: oas31.SchemaObject }) =>
      z
        .unknown()
        .superRefine((value, ctx) => {
          for (const problem of check(value).problems) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message, input: value });
        })
        .meta(openapi) as unknown as z.ZodType<T>,
  };
}

// OpenAPI.

/** A reference to a component schema, for a group's parts. */
export const componentRef = (id: string): oas31.ReferenceObject => ({ $ref: `#/components/schemas/${id}` });

/** The OpenAPI shape of a leaf; its value's rules depend on the op, so they are only described. */
export function leafShape(leaf: { maxFieldLength: number; examples: string[]; operators: readonly string[]; valueDescription: string }): oas31.SchemaObject {
  return {
    type: 'object',
    required: ['field', 'op'],
    additionalProperties: false,
    properties: {
      field: { type: 'string', maxLength: leaf.maxFieldLength, examples: leaf.examples },
      op: { type: 'string', enum: [...leaf.operators] },
      value: { description: leaf.valueDescription },
    },
  };
}
