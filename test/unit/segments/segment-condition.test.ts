import { describe, expect, it } from 'vitest';
import { segmentCondition } from '../../../src/domain/segments/segment-condition.ts';
import type { SegmentRule, SegmentRules } from '../../../src/domain/segments/segment-rules.ts';

const appId = '00000000-0000-4000-8000-000000000001';
const base = '(d.app_id = ? and d.subscribed and d.deleted_at is null and ';

/** The SQL and params of one rule alone, inside the all-group every segment has at its root. */
function compiled(rule: SegmentRule) {
  const { sql, params } = segmentCondition({ all: [rule] }, appId);
  expect(sql.startsWith(`${base}(`)).toBe(true);
  expect(params[0]).toBe(appId);
  return { sql: sql.slice(base.length + 1, -2), params: params.slice(1) };
}

/** Every placeholder has its value, and no value is written into the SQL. */
function expectPlaceholdersMatch(sql: string, params: unknown[]) {
  expect(sql.split('?').length - 1).toBe(params.length);
}

describe('segmentCondition: the fixed columns', () => {
  it.each<[SegmentRule, string, unknown[]]>([
    [{ field: 'platform', op: 'eq', value: 'ios' }, 'd.platform = ?', ['ios']],
    [{ field: 'platform', op: 'neq', value: 'ios' }, 'd.platform <> ?', ['ios']],
    [{ field: 'platform', op: 'in', value: ['ios', 'web'] }, 'd.platform in (?, ?)', ['ios', 'web']],
    [{ field: 'platform', op: 'nin', value: ['android'] }, 'd.platform not in (?)', ['android']],
    [{ field: 'subscribed', op: 'eq', value: true }, 'd.subscribed = ?', [true]],
    [{ field: 'clientUserId', op: 'eq', value: 'u1' }, 'd.client_user_id = ?', ['u1']],
    [{ field: 'clientUserId', op: 'neq', value: 'u1' }, 'd.client_user_id is distinct from ?', ['u1']],
    [{ field: 'clientUserId', op: 'nin', value: ['u1', 'u2'] }, '(d.client_user_id is null or d.client_user_id not in (?, ?))', ['u1', 'u2']],
    [{ field: 'clientUserId', op: 'exists' }, 'd.client_user_id is not null', []],
    [{ field: 'locale', op: 'notExists' }, 'd.locale is null', []],
    [{ field: 'locale', op: 'in', value: ['en-GB'] }, 'd.locale in (?)', ['en-GB']],
    [{ field: 'lastSeenAt', op: 'gte', value: '2026-01-01T00:00:00Z' }, 'd.last_seen_at >= ?::timestamptz', ['2026-01-01T00:00:00Z']],
    [{ field: 'lastSeenAt', op: 'withinHours', value: 24 }, "d.last_seen_at >= now() - ?::float8 * interval '1 hour'", [24]],
    [{ field: 'lastSeenAt', op: 'olderThanHours', value: 1.5 }, "d.last_seen_at < now() - ?::float8 * interval '1 hour'", [1.5]],
  ])('%j', (rule, sql, params) => {
    expect(compiled(rule)).toEqual({ sql, params });
    expectPlaceholdersMatch(sql, params);
  });
});

describe('segmentCondition: attributes', () => {
  it('compiles eq, neq, in and nin to containment, which the GIN index answers', () => {
    expect(compiled({ field: 'attributes.plan', op: 'eq', value: 'pro' })).toEqual({ sql: 'd.attributes @> ?::jsonb', params: ['{"plan":"pro"}'] });
    expect(compiled({ field: 'attributes.address.country', op: 'neq', value: 'GB' })).toEqual({
      sql: 'not (d.attributes @> ?::jsonb)',
      params: ['{"address":{"country":"GB"}}'],
    });
    expect(compiled({ field: 'attributes.level', op: 'in', value: [1, true, 'x'] })).toEqual({
      sql: '(d.attributes @> ?::jsonb or d.attributes @> ?::jsonb or d.attributes @> ?::jsonb)',
      params: ['{"level":1}', '{"level":true}', '{"level":"x"}'],
    });
    expect(compiled({ field: 'attributes.level', op: 'nin', value: [2] })).toEqual({ sql: 'not (d.attributes @> ?::jsonb)', params: ['{"level":2}'] });
  });

  it('reads the path key by key for exists and notExists', () => {
    expect(compiled({ field: 'attributes.a.b', op: 'exists' })).toEqual({ sql: "coalesce(jsonb_typeof(d.attributes -> ? -> ?), 'null') <> 'null'", params: ['a', 'b'] });
    expect(compiled({ field: 'attributes.a', op: 'notExists' })).toEqual({ sql: "coalesce(jsonb_typeof(d.attributes -> ?), 'null') = 'null'", params: ['a'] });
  });

  it('compares numbers as jsonb and strings as text in collation "C", each only with its own type', () => {
    expect(compiled({ field: 'attributes.age', op: 'gt', value: 30 })).toEqual({
      sql: "(jsonb_typeof(d.attributes -> ?) = 'number' and (d.attributes -> ?) > ?::jsonb)",
      params: ['age', 'age', '30'],
    });
    expect(compiled({ field: 'attributes.a.since', op: 'lte', value: '2026-01-01' })).toEqual({
      sql: "(jsonb_typeof(d.attributes -> ? -> ?) = 'string' and (d.attributes -> ? ->> ?) collate \"C\" <= ?)",
      params: ['a', 'since', 'a', 'since', '2026-01-01'],
    });
  });

  it('keeps keys and values out of the SQL text, whatever they hold', () => {
    const hostile = "x'); drop table devices; --";
    const { sql, params } = segmentCondition({ any: [{ field: `attributes.${hostile.replaceAll(' ', '_')}`, op: 'eq', value: hostile }, { field: 'clientUserId', op: 'eq', value: hostile }] }, appId);
    expect(sql).not.toContain('drop');
    expect(params).toContain(hostile);
    expectPlaceholdersMatch(sql, params);
  });
});

describe('segmentCondition: groups', () => {
  it('nests all and any with parentheses, params in reading order', () => {
    const rules: SegmentRules = {
      all: [
        { field: 'platform', op: 'eq', value: 'ios' },
        { any: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }, { field: 'lastSeenAt', op: 'withinHours', value: 24 }] },
      ],
    };
    expect(segmentCondition(rules, appId)).toEqual({
      sql: `${base}(d.platform = ? and (d.attributes @> ?::jsonb or d.last_seen_at >= now() - ?::float8 * interval '1 hour')))`,
      params: [appId, 'ios', '{"plan":"pro"}', 24],
    });
  });

  it('reads an empty all as every device of the segment base', () => {
    expect(segmentCondition({ all: [] }, appId)).toEqual({ sql: `${base}true)`, params: [appId] });
  });
});
