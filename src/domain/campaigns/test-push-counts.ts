import type { EntityManager } from '@mikro-orm/postgresql';
import type { PushTestResult } from '../../../workflows/push-test.contract.ts';
import { marks } from '../sends/send-scope.ts';

/** A test send's outcome, counted over its rows. */
export async function countTestPushes(em: EntityManager, sendIds: string[]): Promise<PushTestResult> {
  const [row] = await em.getConnection().execute<Array<Record<keyof PushTestResult, string>>>(
    `select count(*) filter (where status = 'sent') as sent,
            count(*) filter (where status in ('failed', 'unconfirmed')) as failed,
            count(*) filter (where status = 'unregistered') as unregistered
       from push_sends where id in (${marks(sendIds.length)})`,
    sendIds,
  );
  return { sent: Number(row!.sent), failed: Number(row!.failed), unregistered: Number(row!.unregistered) };
}
