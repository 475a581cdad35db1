import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AbTestArm } from '../../persistence/entities/ab-test-member.ts';
import { PushSend, type PushSendStatus } from '../../persistence/entities/push-send.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';
import { findOwnedAbTest } from '../abtests/find-owned-ab-test.ts';
import { findOwnedNotification } from '../campaigns/find-owned-notification.ts';

/** GET /push/sends: the pushes of one A/B test, or of one message (its campaign, test sends and A/B arms). */
export async function listPushSends(
  em: EntityManager,
  accountId: string,
  filter: {
    abTestId?: string | undefined;
    notificationId?: string | undefined;
    arm?: AbTestArm | undefined;
    status?: PushSendStatus | undefined;
    limit: number;
    cursor?: string | undefined;
  },
): Promise<Page<PushSend>> {
  const where: FilterQuery<PushSend> = { accountId };
  if (filter.abTestId) {
    await findOwnedAbTest(em, accountId, filter.abTestId);
    where.abTestId = filter.abTestId;
  }
  if (filter.notificationId) {
    await findOwnedNotification(em, accountId, filter.notificationId);
    where.notificationId = filter.notificationId;
  }
  if (filter.arm) where.arm = filter.arm;
  if (filter.status) where.status = filter.status;
  return paginate(em, PushSend, where, filter);
}
