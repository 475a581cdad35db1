import type { EntityManager } from '@mikro-orm/postgresql';
import { AbTest } from '../../persistence/entities/ab-test.ts';
import type { AbTestArm } from '../../persistence/entities/ab-test-member.ts';
import { DomainError } from '../errors.ts';
import { deliverPushes, type DeliverDeps, type DeliverOutcome } from '../sends/deliver-pushes.ts';
import { appControls } from '../sends/app-controls.ts';
import { pendingRows } from '../sends/pending-rows.ts';
import { loadPushContent } from '../sends/push-content.ts';
import { wholeRange } from '../sends/send-scope.ts';

/** Which message an arm gets: A's, B's, or the winner's for the remainder. */
function messageOf(test: AbTest, arm: AbTestArm): string {
  const id = arm === 'A' ? test.templateIdA : arm === 'B' ? test.templateIdB : test.winner === 'A' ? test.templateIdA : test.winner === 'B' ? test.templateIdB : null;
  if (!id) throw new DomainError('invalid_state', `arm ${arm} of test ${test.id} has no message to send`);
  return id;
}

export type SendArmOutcome = { kind: 'done'; sent: number; failed: number } | Extract<DeliverOutcome, { kind: 'retry' }>;

/**
 * Sends an arm's message to its devices through the send engine: the arm's rows are written `pending` from the
 * audience snapshot in one statement (unique on test and device, so a retry writes nothing twice), then delivered
 * wave by wave, resuming after `resumeAfter`. Answers the arm's counts once every row has its outcome.
 */
export async function sendArm(deps: DeliverDeps, input: { testId: string; arm: AbTestArm; resumeAfter?: string | undefined }): Promise<SendArmOutcome> {
  const { em } = deps;
  const test = await em.findOneOrFail(AbTest, { id: input.testId });
  const notificationId = messageOf(test, input.arm);
  const notification = await loadPushContent(em, notificationId);
  await writeArmRows(em, test, input.arm, notificationId);
  const rows = await pendingRows(em, { scope: { kind: 'abtest', testId: test.id, arm: input.arm }, range: wholeRange, resumeAfter: input.resumeAfter });
  const outcome = await deliverPushes(deps, {
    sources: [rows],
    notification,
    data: { abTestId: test.id, arm: input.arm },
    // The arms' pushes count toward the app's cap but are never held by it (that would bias the test); the remainder's are.
    // A/B sends ignore quiet hours (docs/spec-decisions.md): no deadline is given, so none is read.
    ...(await appControls(em, test.appId, { enforce: input.arm === 'remainder' })),
  });
  if (outcome.kind === 'retry') return outcome;
  const [counts] = await em.getConnection().execute<Array<{ sent: string; failed: string }>>(
    `select count(*) filter (where status = 'sent') as sent, count(*) filter (where status in ('failed', 'unregistered')) as failed
       from push_sends where ab_test_id = ? and arm = ?`,
    [test.id, input.arm],
  );
  return { kind: 'done', sent: Number(counts!.sent), failed: Number(counts!.failed) };
}

const writeArmRows = (em: EntityManager, test: AbTest, arm: AbTestArm, notificationId: string) =>
  em.getConnection().execute(
    `insert into push_sends (id, account_id, source, ab_test_id, device_id, arm, notification_id, status, created_at)
     select gen_random_uuid(), ?, 'abtest', m.ab_test_id, m.device_id, m.arm, ?, 'pending', now()
       from ab_test_members m where m.ab_test_id = ? and m.arm = ?
     on conflict (ab_test_id, device_id) where ab_test_id is not null do nothing`,
    [test.accountId, notificationId, test.id, arm],
  );
