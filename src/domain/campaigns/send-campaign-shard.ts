import { deliverPushes, type DeliverDeps, type DeliverOutcome } from '../sends/deliver-pushes.ts';
import { loadPushContent } from '../sends/push-content.ts';
import type { DeviceRange } from '../sends/send-scope.ts';

/**
 * Sends one shard of a campaign's snapshot through the send engine, resuming after `resumeAfter`. Only while the
 * campaign is SENDING: each wave's claim checks it, so a send cancelled through the API stops within one wave.
 */
export async function sendCampaignShard(
  deps: DeliverDeps,
  input: { notificationId: string; range: DeviceRange; resumeAfter?: string | undefined },
): Promise<DeliverOutcome> {
  return deliverPushes(deps, {
    scope: { kind: 'campaign', notificationId: input.notificationId },
    range: input.range,
    resumeAfter: input.resumeAfter,
    notification: await loadPushContent(deps.em, input.notificationId),
    data: {},
  });
}
