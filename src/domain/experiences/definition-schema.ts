// TEMPORARY stand-in for the definition types, replaced by the zod schema module (branch i9-flowdef).
export type ConditionOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin' | 'contains' | 'exists' | 'notExists';
export type Condition = { field: string; op: ConditionOp; value?: unknown } | { all: Condition[] } | { any: Condition[] } | { not: Condition };
export type ExperienceNode =
  | { id: string; type: 'webhook'; result: Record<string, unknown>; endpointId?: string | undefined; next: string }
  | { id: string; type: 'wait'; seconds: number; next: string }
  | { id: string; type: 'condition'; if: Condition; then: string; else: string }
  | { id: string; type: 'provider'; connectionId: string; call: 'track' | 'identify'; event?: string | undefined; properties?: Record<string, unknown> | undefined; next: string }
  | { id: string; type: 'waitForEvent'; eventType: string; conditions?: Condition | null | undefined; timeoutSeconds: number; next: string; timeoutNext: string }
  | { id: string; type: 'split'; branches: Array<{ percent: number; next: string }> }
  | { id: string; type: 'exit' };
export interface ExperienceGoal {
  id: string;
  eventType: string;
  conditions?: Condition | null | undefined;
  exit: boolean;
}
export interface ExperienceDefinition {
  name: string;
  trigger: { eventType: string; conditions?: Condition | null | undefined };
  entry: { reentry: 'never' | 'after_exit' | 'always' };
  goals: ExperienceGoal[];
  maxDurationSeconds: number;
  start: string;
  nodes: ExperienceNode[];
}

import { z } from 'zod';
export const experienceDefinitionSchema = z.looseObject({ name: z.string(), start: z.string(), nodes: z.array(z.looseObject({ id: z.string(), type: z.string() })) }) as unknown as z.ZodType<ExperienceDefinition>;
