import { z } from 'zod';
import { eventTypeMaxLength } from '../ingest/normalise/envelope.ts';
import { conditionSchema, optionalConditionSchema } from './condition-schema.ts';
import { findTemplateProblems } from '../../sandbox-safe/experiences/render-template.ts';

// The definition of an experience (a flow): the per-person journey an ingested event starts and advances.
// This schema checks each part's shape; how the parts fit together (references, reachability, cycles, the publish
// limits) is checked by checkDefinitionGraph when the experience is published.
//
// Decisions (docs/spec-decisions.md, "The definition"):
// - Objects are strict: an unknown key (a typo such as "nxt") is an error, not silently ignored.
// - Left out means: entry { reentry: "never" }, goals [], a goal's exit false, conditions null (always hold),
//   a webhook's result {}, maxDurationSeconds 90 days.
// - Durations are whole seconds, at least 1. The 365-day ceiling and the 200-node limit are publish rules
//   (checkDefinitionGraph), so a draft can be stored while it is being worked on.
// - A webhook node's endpointId is optional: with it the call is meant for that endpoint only, without it for every
//   endpoint subscribed to the event type (the run decides; publishing checks a given endpointId is the account's).
// - A provider node calls `track` (needs `event`) or `identify` (no `event`; its `properties` are sent as traits).
//   Its event name is literal text; templates are filled in `properties` and a webhook's `result` only.

export const secondsPerDay = 86_400;
export const defaultMaxDurationSeconds = 90 * secondsPerDay;
/** The longest wait, waitForEvent timeout or maxDurationSeconds a published experience may have. */
export const maxDurationLimitSeconds = 365 * secondsPerDay;
/** Nodes a published experience may have. */
export const maxNodes = 200;
export const maxGoals = 20;
export const maxSplitBranches = 10;
/** A webhook's result or a provider's properties, as JSON text. */
export const maxTemplatedObjectLength = 16_384;
/** Nesting of a result or properties (the object itself is level 1): deeper JSON would exhaust the stack of the walks. */
export const maxTemplatedObjectDepth = 10;
export const nameMaxLength = 200;

export const reentryPolicies = ['never', 'after_exit', 'always'] as const;
export const nodeTypes = ['webhook', 'wait', 'condition', 'provider', 'push', 'waitForEvent', 'split', 'exit'] as const;
export const providerCalls = ['track', 'identify'] as const;
/** Connections a provider node may call: those whose provider has an outbound API we speak. */
export const outboundProviders = ['segment', 'rudderstack'] as const;

const required = (what: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

const text = (max: number) =>
  z.string({ error: required('a string') }).min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const idPattern = /^[A-Za-z0-9_-]{1,64}$/;
const nodeId = z.string({ error: required('a string') }).regex(idPattern, 'must be 1 to 64 letters, digits, "_" or "-"');

// Ids as src/security/ids.ts makes them: a prefix and base64url, 40 characters at most (the columns' width).
const prefixedId = (prefix: string, what: string) =>
  z.string({ error: required('a string') }).regex(new RegExp(`^${prefix}[A-Za-z0-9_-]{1,${40 - prefix.length}}$`), `must be ${what} id (${prefix}…)`);

const seconds = z.number({ error: required('a number') }).int('must be a whole number of seconds').min(1, 'must be at least 1');

/** Whether arrays and objects nest deeper than `levels`; stops looking there, so hostile input cannot go deep. */
function nestsDeeper(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  return Object.values(value).some((item) => nestsDeeper(item, levels - 1));
}

/** A JSON object whose strings may hold templates; every template must name a known field. */
const templatedObject = z.record(z.string(), z.unknown(), { error: required('a JSON object') }).superRefine((value, ctx) => {
  if (nestsDeeper(value, maxTemplatedObjectDepth)) {
    ctx.addIssue({ code: 'custom', message: `must nest at most ${maxTemplatedObjectDepth} levels deep`, input: value });
    return;
  }
  if (JSON.stringify(value).length > maxTemplatedObjectLength) {
    ctx.addIssue({ code: 'custom', message: `must be at most ${maxTemplatedObjectLength} characters as JSON`, input: value });
    return;
  }
  for (const problem of findTemplateProblems(value)) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message, input: value });
});

const webhookNode = z.strictObject({
  id: nodeId,
  type: z.literal('webhook'),
  endpointId: prefixedId('ep_', 'an endpoint').optional(),
  result: templatedObject.default({}),
  next: nodeId,
});

const waitNode = z.strictObject({ id: nodeId, type: z.literal('wait'), seconds, next: nodeId });

const conditionNode = z.strictObject({
  id: nodeId,
  type: z.literal('condition'),
  if: conditionSchema,
  then: nodeId,
  else: nodeId,
});

const providerFields = {
  id: nodeId,
  type: z.literal('provider'),
  connectionId: prefixedId('conn_', 'a connection'),
  properties: templatedObject.optional(),
  next: nodeId,
};
const providerNode = z.discriminatedUnion(
  'call',
  [
    z.strictObject({ ...providerFields, call: z.literal('track'), event: text(eventTypeMaxLength) }),
    z.strictObject({ ...providerFields, call: z.literal('identify'), event: z.never({ error: 'is only for call track' }).optional() }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${providerCalls.join(', ')}` : undefined) },
);

/** Sends a message to the run's person: each subscribed device of the message's app whose clientUserId is the run's. */
const pushNode = z.strictObject({
  id: nodeId,
  type: z.literal('push'),
  notificationId: z.uuid({ error: 'must be the id (a UUID) of a message' }),
  next: nodeId,
});

const waitForEventNode = z.strictObject({
  id: nodeId,
  type: z.literal('waitForEvent'),
  eventType: text(eventTypeMaxLength),
  conditions: optionalConditionSchema,
  timeoutSeconds: seconds,
  next: nodeId,
  timeoutNext: nodeId,
});

const splitNode = z.strictObject({
  id: nodeId,
  type: z.literal('split'),
  branches: z
    .array(z.strictObject({ percent: z.number({ error: required('a number') }).int('must be a whole number').min(0, 'must be 0 to 100').max(100, 'must be 0 to 100'), next: nodeId }), {
      error: required('an array'),
    })
    .min(2, 'must have at least 2 branches')
    .max(maxSplitBranches, `must have at most ${maxSplitBranches} branches`),
});

const exitNode = z.strictObject({ id: nodeId, type: z.literal('exit') });

const nodeSchema = z.discriminatedUnion('type', [webhookNode, waitNode, conditionNode, providerNode, pushNode, waitForEventNode, splitNode, exitNode], {
  error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${nodeTypes.join(', ')}` : undefined),
});

const goalSchema = z.strictObject({
  id: nodeId,
  eventType: text(eventTypeMaxLength),
  conditions: optionalConditionSchema,
  exit: z.boolean({ error: required('a boolean') }).default(false),
});

/** Reports every item whose id an earlier item already has. */
const uniqueIds = (items: { id: string }[], ctx: z.RefinementCtx) => {
  const firstIndex = new Map<string, number>();
  items.forEach((item, index) => {
    const first = firstIndex.get(item.id);
    if (first === undefined) firstIndex.set(item.id, index);
    else ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `repeats the id "${item.id}" of item ${first}`, input: item.id });
  });
};

export const experienceDefinitionSchema = z
  .strictObject({
    name: z.string({ error: required('a string') }).trim().min(1, 'must not be empty').max(nameMaxLength, `must be at most ${nameMaxLength} characters`),
    trigger: z.strictObject({ eventType: text(eventTypeMaxLength), conditions: optionalConditionSchema }, { error: required('an object') }),
    entry: z.strictObject({ reentry: z.enum(reentryPolicies, { error: `must be one of ${reentryPolicies.join(', ')}` }) }).default({ reentry: 'never' }),
    goals: z.array(goalSchema, { error: required('an array') }).max(maxGoals, `must have at most ${maxGoals} goals`).superRefine(uniqueIds).default([]),
    maxDurationSeconds: seconds.default(defaultMaxDurationSeconds),
    start: nodeId,
    nodes: z.array(nodeSchema, { error: required('an array') }).min(1, 'must have at least one node').superRefine(uniqueIds),
  })
  .meta({ id: 'ExperienceDefinition' });

export type ExperienceDefinition = z.output<typeof experienceDefinitionSchema>;
/** What a client sends: the defaults are still optional. */
export type ExperienceDefinitionInput = z.input<typeof experienceDefinitionSchema>;
export type ExperienceNode = ExperienceDefinition['nodes'][number];
export type ExperienceNodeType = ExperienceNode['type'];
export type ExperienceNodeOf<T extends ExperienceNodeType> = Extract<ExperienceNode, { type: T }>;
export type WebhookNode = ExperienceNodeOf<'webhook'>;
export type WaitNode = ExperienceNodeOf<'wait'>;
export type ConditionNode = ExperienceNodeOf<'condition'>;
export type ProviderNode = ExperienceNodeOf<'provider'>;
export type WaitForEventNode = ExperienceNodeOf<'waitForEvent'>;
export type SplitNode = ExperienceNodeOf<'split'>;
export type ExitNode = ExperienceNodeOf<'exit'>;
export type SplitBranch = SplitNode['branches'][number];
export type ExperienceGoal = ExperienceDefinition['goals'][number];
export type ExperienceTrigger = ExperienceDefinition['trigger'];
export type ReentryPolicy = (typeof reentryPolicies)[number];

export type { Condition, ConditionGroup, ConditionLeaf, ConditionOperator, Scalar } from '../../sandbox-safe/experiences/evaluate-condition.ts';
export type { ExperienceContext, ExperienceEvent, ExperienceVisitor, JsonObject } from '../../sandbox-safe/experiences/context-fields.ts';
