import { isGroup, parseSegmentField, type ColumnField, type Scalar, type SegmentCondition, type SegmentRule, type SegmentRules } from './segment-rules.ts';

// Compiles segment rules to one SQL boolean expression over `devices d`. Values are never written into the SQL:
// each is a `?` placeholder with its value in `params`, the form MikroORM's `em.execute(sql, params)` and
// `em.getConnection().execute(sql, params)` take (they hand each value to the driver's escaping, one per `?`). The SQL
// text holds no other `?`, so no jsonb `?` operator: key existence is spelled with jsonb_typeof.
//
// Only all/any groups combine conditions (no `not`), so a condition that is NULL for a device (a missing column)
// counts as false; the negations (neq, nin, notExists) are written to be true on a missing value, as experiences' conditions do.
// Which predicates an index serves is in docs/adr/0019-segment-rules-compile-to-one-sql-condition.md.

export interface SqlCondition {
  sql: string;
  params: unknown[];
}

const columns: Record<ColumnField, string> = {
  platform: 'd.platform',
  subscribed: 'd.subscribed',
  clientUserId: 'd.client_user_id',
  locale: 'd.locale',
  lastSeenAt: 'd.last_seen_at',
};
const nullableColumns = new Set<ColumnField>(['clientUserId', 'locale']);

const comparisons = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

function columnCondition(name: ColumnField, condition: SegmentCondition): SqlCondition {
  const column = columns[name];
  const nullable = nullableColumns.has(name);
  switch (condition.op) {
    case 'eq':
      return { sql: `${column} = ?`, params: [condition.value] };
    case 'neq':
      return { sql: nullable ? `${column} is distinct from ?` : `${column} <> ?`, params: [condition.value] };
    case 'in':
      return { sql: `${column} in (${placeholders(condition.value.length)})`, params: [...condition.value] };
    case 'nin': {
      const notIn = `${column} not in (${placeholders(condition.value.length)})`;
      return { sql: nullable ? `(${column} is null or ${notIn})` : notIn, params: [...condition.value] };
    }
    case 'exists':
      return { sql: `${column} is not null`, params: [] };
    case 'notExists':
      return { sql: `${column} is null`, params: [] };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { sql: `${column} ${comparisons[condition.op]} ?::timestamptz`, params: [condition.value] };
    case 'withinHours':
      return { sql: `${column} >= now() - ?::float8 * interval '1 hour'`, params: [condition.value] };
    case 'olderThanHours':
      return { sql: `${column} < now() - ?::float8 * interval '1 hour'`, params: [condition.value] };
  }
}

/** `{ a: { b: value } }` for the path a.b: what a device's attributes contain when a.b equals the value. */
const containing = (path: string[], value: Scalar): string =>
  JSON.stringify(path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value));

function attributeCondition(path: string[], condition: SegmentCondition): SqlCondition {
  // The value at the path as jsonb (SQL NULL when a key on the way is missing), and its text for string comparisons.
  const value = { sql: `d.attributes${' -> ?'.repeat(path.length)}`, params: path };
  const text = { sql: `d.attributes${' -> ?'.repeat(path.length - 1)} ->> ?`, params: path };
  const anyOf = (values: Scalar[]) => ({
    sql: `(${values.map(() => 'd.attributes @> ?::jsonb').join(' or ')})`,
    params: values.map((item) => containing(path, item)),
  });
  switch (condition.op) {
    case 'eq':
      return { sql: 'd.attributes @> ?::jsonb', params: [containing(path, condition.value)] };
    case 'neq':
      return { sql: 'not (d.attributes @> ?::jsonb)', params: [containing(path, condition.value)] };
    case 'in':
      return anyOf(condition.value);
    case 'nin': {
      const inner = anyOf(condition.value);
      return { sql: `not ${inner.sql}`, params: inner.params };
    }
    case 'exists':
      return { sql: `coalesce(jsonb_typeof(${value.sql}), 'null') <> 'null'`, params: value.params };
    case 'notExists':
      return { sql: `coalesce(jsonb_typeof(${value.sql}), 'null') = 'null'`, params: value.params };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const operator = comparisons[condition.op];
      // Numbers compare with numbers and strings with strings (by code point, collation "C", so ISO-8601 dates in
      // one form compare by time); any other pairing is false. jsonb comparison cannot fail on a stored value.
      if (typeof condition.value === 'number') {
        return {
          sql: `(jsonb_typeof(${value.sql}) = 'number' and (${value.sql}) ${operator} ?::jsonb)`,
          params: [...value.params, ...value.params, JSON.stringify(condition.value)],
        };
      }
      return {
        sql: `(jsonb_typeof(${value.sql}) = 'string' and (${text.sql}) collate "C" ${operator} ?)`,
        params: [...value.params, ...text.params, condition.value],
      };
    }
    case 'withinHours':
    case 'olderThanHours':
      throw new Error(`${condition.op} applies to lastSeenAt only`);
  }
}

function compileRule(rule: SegmentRule): SqlCondition {
  if (isGroup(rule)) {
    const [parts, joiner] = 'all' in rule ? [rule.all, ' and '] : [rule.any, ' or '];
    if (parts.length === 0) return { sql: 'all' in rule ? 'true' : 'false', params: [] };
    const compiled = parts.map(compileRule);
    return { sql: `(${compiled.map((part) => part.sql).join(joiner)})`, params: compiled.flatMap((part) => part.params) };
  }
  const field = parseSegmentField(rule.field);
  if (!field) throw new Error(`not a segment field: ${rule.field}`);
  return field.kind === 'column' ? columnCondition(field.name, rule) : attributeCondition(field.path, rule);
}

/**
 * The devices of the segment, as one SQL boolean expression over the devices table aliased `d`: the app's devices
 * that are subscribed and not deleted (the predicate of the devices table's partial indexes) and match the rules.
 * Placeholders are `?`, one per value in `params`, for `em.execute(sql, params)`.
 */
export function segmentCondition(rules: SegmentRules, appId: string): SqlCondition {
  const matching = compileRule(rules);
  return { sql: `(d.app_id = ? and d.subscribed and d.deleted_at is null and ${matching.sql})`, params: [appId, ...matching.params] };
}
