// TEMPORARY stand-in, replaced by branch i9-flowdef.
import type { Condition } from './definition-schema.ts';

export interface ConditionContext {
  event?: { eventType: string; attributes: Record<string, unknown> } | undefined;
  trigger?: { eventType: string; attributes: Record<string, unknown> } | undefined;
  visitor?: { clientUserId: string | null; attributes: Record<string, unknown> } | null | undefined;
}

export function resolveField(field: string, context: ConditionContext): unknown {
  const [root, part, ...rest] = field.split('.');
  let value: unknown;
  if (root === 'event' && part === 'eventType') return context.event?.eventType;
  if (root === 'visitor' && part === 'clientUserId') return context.visitor?.clientUserId ?? undefined;
  if (root === 'event') value = context.event?.attributes;
  else if (root === 'trigger') value = context.trigger?.attributes;
  else if (root === 'visitor') value = context.visitor?.attributes;
  for (const key of rest) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

export function evaluateCondition(condition: Condition, context: ConditionContext): boolean {
  if ('all' in condition) return condition.all.every((inner) => evaluateCondition(inner, context));
  if ('any' in condition) return condition.any.some((inner) => evaluateCondition(inner, context));
  if ('not' in condition) return !evaluateCondition(condition.not, context);
  const value = resolveField(condition.field, context);
  switch (condition.op) {
    case 'eq': return value === condition.value;
    case 'neq': return value !== condition.value;
    case 'in': return Array.isArray(condition.value) && condition.value.includes(value);
    case 'nin': return !(Array.isArray(condition.value) && condition.value.includes(value));
    case 'exists': return value !== undefined && value !== null;
    case 'notExists': return value === undefined || value === null;
    case 'contains': return typeof value === 'string' ? value.includes(String(condition.value)) : Array.isArray(value) && value.includes(condition.value);
    default: {
      const a = value as number; const b = condition.value as number;
      if (typeof a !== typeof b) return false;
      return condition.op === 'gt' ? a > b : condition.op === 'gte' ? a >= b : condition.op === 'lt' ? a < b : a <= b;
    }
  }
}
