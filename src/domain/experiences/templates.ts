// TEMPORARY stand-in, replaced by branch i9-flowdef.
import { resolveField, type ConditionContext } from './conditions.ts';

export function renderTemplate(value: unknown, context: ConditionContext): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*([^}]+?)\s*\}\}$/.exec(value);
    if (whole) return resolveField(whole[1]!, context) ?? null;
    return value.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_m, field: string) => {
      const v = resolveField(field, context);
      return v === undefined || v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(value)) return value.map((item) => renderTemplate(item, context));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderTemplate(v, context)]));
  return value;
}
