import type { EntityManager } from '@mikro-orm/postgresql';
import { AbTest } from '../../persistence/entities/ab-test.ts';
import type { AbTestArm } from '../../persistence/entities/ab-test-member.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import { DomainError } from '../errors.ts';
import { pushNotificationOf, type PushPlatform, type PushProvider, type PushResult } from '../../outbound/push/push-provider.ts';

/** Devices per page: one page is one set of queries and one provider batch. */
export const sendPageSize = 500;

export interface SendArmDeps {
  em: EntityManager;
  push: PushProvider;
  /** Called after each page with the last device done, so a retry resumes after it. */
  progress?: (lastDeviceId: string) => void;
  signal?: AbortSignal | undefined;
}

/**
 * `?, ?, …`: MikroORM writes each parameter into the SQL text itself (escaped), and would write an array as a comma
 * list, so a list of values takes one placeholder per value.
 */
const marks = (count: number) => Array.from({ length: count }, () => '?').join(', ');

interface PageRow {
  send_id: string;
  device_id: string;
  token: string;
  platform: PushPlatform;
}

/** Which message an arm gets: A's, B's, or the winner's for the remainder. */
function messageOf(test: AbTest, arm: AbTestArm): string {
  const id = arm === 'A' ? test.templateIdA : arm === 'B' ? test.templateIdB : test.winner === 'A' ? test.templateIdA : test.winner === 'B' ? test.templateIdB : null;
  if (!id) throw new DomainError('invalid_state', `arm ${arm} of test ${test.id} has no message to send`);
  return id;
}

/**
 * Sends an arm's message to its devices, page by page in device id order, starting after `resumeAfter`. Each page first
 * writes its send rows (`pending`; unique on test and device, so a page done before is not written again), sends only
 * the rows still pending, and stores each outcome. A device that unregistered is unsubscribed. Transient refusals
 * leave their rows pending and stop the call with `retry` (after the provider's Retry-After, if it gave one), so the
 * next try of the page sends exactly those. Devices unsubscribed since the snapshot are skipped.
 */
export type SendArmOutcome = { kind: 'done'; sent: number; failed: number } | { kind: 'retry'; reason: string; afterMs?: number };

export async function sendArm(deps: SendArmDeps, input: { testId: string; arm: AbTestArm; resumeAfter?: string | undefined }): Promise<SendArmOutcome> {
  const { em } = deps;
  const test = await em.findOneOrFail(AbTest, { id: input.testId });
  const notificationId = messageOf(test, input.arm);
  const notification = pushNotificationOf(await em.findOneOrFail(Notification, { id: notificationId }));
  const connection = em.getConnection();
  let after = input.resumeAfter ?? null;
  for (;;) {
    deps.signal?.throwIfAborted();
    const members = await connection.execute<Array<{ device_id: string }>>(
      `select m.device_id from ab_test_members m join devices d on d.id = m.device_id
        where m.ab_test_id = ? and m.arm = ? and d.subscribed and d.deleted_at is null and (?::uuid is null or m.device_id > ?::uuid)
        order by m.device_id limit ?`,
      [test.id, input.arm, after, after, sendPageSize],
    );
    if (members.length === 0) break;
    const deviceIds = members.map((member) => member.device_id);
    await connection.execute(
      `insert into push_sends (id, account_id, ab_test_id, device_id, arm, notification_id, status, created_at)
       select gen_random_uuid(), ?, ?, d.id, ?, ?, 'pending', now() from devices d where d.id in (${marks(deviceIds.length)})
       on conflict (ab_test_id, device_id) do nothing`,
      [test.accountId, test.id, input.arm, notificationId, ...deviceIds],
    );
    const pending = await connection.execute<PageRow[]>(
      `select s.id as send_id, s.device_id, d.token, d.platform from push_sends s join devices d on d.id = s.device_id
        where s.ab_test_id = ? and s.device_id in (${marks(deviceIds.length)}) and s.status = 'pending'`,
      [test.id, ...deviceIds],
    );
    const results = pending.length
      ? await deps.push.sendBatch(
          pending.map((row) => ({ sendId: row.send_id, token: row.token, platform: row.platform, notification, data: { abTestId: test.id, arm: input.arm } })),
          deps.signal,
        )
      : [];
    await storeOutcomes(em, pending, results);
    const retry = results.filter((result) => result.outcome === 'retry');
    if (retry.length) {
      const afterMs = Math.max(0, ...retry.map((result) => result.retryAfterMs ?? 0));
      const reason = `${retry.length} push(es) of arm ${input.arm} to retry: ${retry[0]!.error ?? 'the provider asked to retry'}`;
      return afterMs ? { kind: 'retry', reason, afterMs } : { kind: 'retry', reason };
    }
    after = deviceIds.at(-1)!;
    deps.progress?.(after);
  }
  const [counts] = await connection.execute<Array<{ sent: string; failed: string }>>(
    `select count(*) filter (where status = 'sent') as sent, count(*) filter (where status in ('failed', 'unregistered')) as failed
       from push_sends where ab_test_id = ? and arm = ?`,
    [test.id, input.arm],
  );
  return { kind: 'done', sent: Number(counts!.sent), failed: Number(counts!.failed) };
}

/** One statement for a page's outcomes, one for the devices that unregistered. */
async function storeOutcomes(em: EntityManager, rows: PageRow[], results: PushResult[]): Promise<void> {
  const done = results.filter((result) => result.outcome !== 'retry');
  if (done.length === 0) return;
  const connection = em.getConnection();
  await connection.execute(
    `update push_sends s set status = v.status, error = v.error, provider_message_id = v.provider_message_id,
            sent_at = case when v.status = 'sent' then now() else null end
       from (values ${done.map(() => '(?::uuid, ?, ?, ?)').join(', ')}) as v(id, status, error, provider_message_id)
      where s.id = v.id and s.status = 'pending'`,
    done.flatMap((result) => [result.sendId, result.outcome, result.error ?? null, result.providerMessageId ?? null]),
  );
  const unregistered = new Set(done.filter((result) => result.outcome === 'unregistered').map((result) => result.sendId));
  const devices = rows.filter((row) => unregistered.has(row.send_id)).map((row) => row.device_id);
  if (devices.length) await connection.execute(`update devices set subscribed = false, updated_at = now() where id in (${marks(devices.length)})`, devices);
}
