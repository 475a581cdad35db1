import type { AbTestArm } from '../../persistence/entities/ab-test-member.ts';

/**
 * Which `push_sends` rows one send covers: an A/B test's arm, a message's campaign send, or the rows of one test send.
 * The engine (deliver-pushes.ts) pages through a scope's rows in device id order.
 */
export type SendScope =
  | { kind: 'abtest'; testId: string; arm: AbTestArm }
  | { kind: 'campaign'; notificationId: string }
  /** A campaign's pushes held by quiet hours (`not_before` set), through their own partial index. */
  | { kind: 'campaign-held'; notificationId: string }
  | { kind: 'test'; sendIds: string[] }
  /** An experience's push node: its rows (source `flow`), by id. */
  | { kind: 'experience'; sendIds: string[] };

/** `?, ?, …`: MikroORM writes each parameter into the SQL text (escaped) and an array as a comma list, so a list takes one mark per value. */
export const marks = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/** The scope as a condition on `push_sends s`, with its parameters; each form matches one of the table's indexes. */
export function scopeCondition(scope: SendScope): { sql: string; params: unknown[] } {
  switch (scope.kind) {
    case 'abtest':
      return { sql: 's.ab_test_id = ? and s.arm = ?', params: [scope.testId, scope.arm] };
    case 'campaign':
    case 'campaign-held':
      // Only while the campaign is SENDING (evaluated once per statement): a send cancelled through the API stops
      // at its next wave, whenever the run's cancellation reaches the activity. A shard's retries and the held
      // pushes are sent by different activities, side by side: neither scope holds the other's rows.
      return {
        sql: `s.notification_id = ? and s.source = 'campaign' and exists (select 1 from campaigns c where c.notification_id = ? and c.state = 'SENDING')
              and s.not_before is ${scope.kind === 'campaign' ? '' : 'not '}null`,
        params: [scope.notificationId, scope.notificationId],
      };
    case 'test':
    case 'experience':
      return { sql: `s.id in (${marks(scope.sendIds.length)})`, params: scope.sendIds };
  }
}

/** The part of a scope one call sends: devices after `after` (exclusive) up to `upTo` (inclusive); null is open. */
export interface DeviceRange {
  after: string | null;
  upTo: string | null;
}

export const wholeRange: DeviceRange = { after: null, upTo: null };

export function rangeCondition(range: DeviceRange): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (range.after !== null) {
    parts.push('s.device_id > ?');
    params.push(range.after);
  }
  if (range.upTo !== null) {
    parts.push('s.device_id <= ?');
    params.push(range.upTo);
  }
  return { sql: parts.length ? parts.join(' and ') : 'true', params };
}
