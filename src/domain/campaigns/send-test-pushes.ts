import { randomUUID } from 'node:crypto';
import { Device } from '../../persistence/entities/device.ts';
import { startPushTest } from '../../temporal/starters/push-test.ts';
import { DomainError } from '../errors.ts';
import { findOwnedNotification } from './find-owned-notification.ts';
import type { CampaignDeps } from './schedule-campaign.ts';

export interface TestSend {
  sendId: string;
  deviceId: string;
}

/**
 * POST /notification/test: the message now, to a few chosen devices of its app, READY or not. The pushes are
 * `push_sends` rows of source `test` (never counted in a campaign's or an A/B test's results), written here and sent
 * by a `push-test:<testId>` run through the send engine.
 */
export async function sendTestPushes(
  deps: CampaignDeps,
  accountId: string,
  input: { id: string; appId: string; deviceIds: string[] },
): Promise<{ testId: string; sends: TestSend[] }> {
  const notification = await findOwnedNotification(deps.em, accountId, input.id, input.appId);
  const deviceIds = [...new Set(input.deviceIds)];
  const devices = await deps.em.find(Device, { id: { $in: deviceIds }, accountId, appId: notification.appId, deletedAt: null });
  const usable = new Map(devices.map((device) => [device.id, device]));
  const problems = input.deviceIds.flatMap((id, index) => {
    const device = usable.get(id);
    if (!device) return [{ path: `body.deviceIds.${index}`, message: 'is not a device of the message’s app' }];
    if (!device.subscribed) return [{ path: `body.deviceIds.${index}`, message: 'is unsubscribed' }];
    return [];
  });
  if (problems.length) throw new DomainError('validation_failed', 'Some devices cannot get a test push', problems);
  const testId = randomUUID();
  const sends = deviceIds.map((deviceId) => ({ sendId: randomUUID(), deviceId }));
  await deps.em.transactional(async (tx) => {
    await tx.execute(
      `insert into push_sends (id, account_id, source, device_id, notification_id, status, created_at)
       values ${sends.map(() => `(?, ?, 'test', ?, ?, 'pending', now())`).join(', ')}`,
      sends.flatMap((send) => [send.sendId, accountId, send.deviceId, notification.id]),
    );
    await startPushTest(deps.temporal, { version: 1, testId, accountId, appId: notification.appId, notificationId: notification.id, sendIds: sends.map((send) => send.sendId) });
  });
  return { testId, sends };
}
