import { beginCampaignSend } from '../src/domain/campaigns/begin-campaign-send.ts';
import { countCampaign } from '../src/domain/campaigns/campaign-counts.ts';
import { readCampaignMessage } from '../src/domain/campaigns/campaign-message.ts';
import { finishCampaignSend } from '../src/domain/campaigns/finish-campaign-send.ts';
import type { CampaignEnd } from '../workflows/campaign-send.contract.ts';
import { nextHeldPush, sendCampaignShard, sendDueCampaignPushes } from '../src/domain/campaigns/send-campaign-shard.ts';
import { countTestPushes } from '../src/domain/campaigns/test-push-counts.ts';
import { deliverPushes } from '../src/domain/sends/deliver-pushes.ts';
import { pendingRows } from '../src/domain/sends/pending-rows.ts';
import { loadPushContent } from '../src/domain/sends/push-content.ts';
import { wholeRange } from '../src/domain/sends/send-scope.ts';
import type { ActivityDeps } from './deps.ts';
import { withDomainFailures } from './domain-failures.ts';
import { whileHeartbeating } from './heartbeat.ts';
import { engineDeps, throwRetry } from './send-engine.ts';

/** A campaign send run's I/O (workflows/campaign-send.ts) and a test send's (workflows/push-test.ts). */
export function createCampaignActivities({ orm, temporal, delivery, push }: ActivityDeps) {
  const publishDeps = () => ({ em: orm.em.fork(), temporal, delivery });
  return {
    // The send run's own steps heartbeat while they run (workflows/campaign-send-activities.ts).
    readCampaignMessage(input: { notificationId: string }) {
      return whileHeartbeating(() => readCampaignMessage(orm.em.fork(), input.notificationId));
    },
    beginCampaignSend(input: { notificationId: string; filterId: string; playTime: number }) {
      return whileHeartbeating(() => withDomainFailures(() => beginCampaignSend(publishDeps(), input)));
    },
    /**
     * One shard in one activity: each wave heartbeats, and a retry goes on from the shard's own cursor. Answers when
     * the send's next push held by quiet hours is due (null: none is held).
     */
    async sendCampaignShard(input: { notificationId: string; shard: number }): Promise<{ nextHeld: number | null }> {
      const { deps } = engineDeps({ orm, push });
      const outcome = await sendCampaignShard(deps, input);
      if (outcome.kind === 'retry') throwRetry(outcome);
      return { nextHeld: await nextHeldPush(deps.em, input.notificationId) };
    },
    /** The pushes quiet hours held whose time has come; answers when the next is due (null: none is left). */
    async sendHeldCampaignPushes(input: { notificationId: string }): Promise<{ nextHeld: number | null }> {
      const { deps, resumeAfter } = engineDeps({ orm, push });
      const outcome = await sendDueCampaignPushes(deps, { ...input, resumeAfter });
      if (outcome.kind === 'retry') throwRetry(outcome);
      return { nextHeld: outcome.nextDue };
    },
    readCampaignCounts(input: { notificationId: string }) {
      return whileHeartbeating(() => countCampaign(orm.em.fork(), input.notificationId));
    },
    finishCampaignSend(input: { notificationId: string } & CampaignEnd) {
      return whileHeartbeating(() => finishCampaignSend(publishDeps(), input));
    },
    async sendTestPushes(input: { notificationId: string; sendIds: string[] }) {
      const { deps, resumeAfter } = engineDeps({ orm, push });
      const rows = await pendingRows(deps.em, { scope: { kind: 'test', sendIds: input.sendIds }, range: wholeRange, resumeAfter });
      const outcome = await deliverPushes(deps, {
        sources: [rows],
        notification: await loadPushContent(deps.em, input.notificationId),
        data: { test: 'true' },
      });
      if (outcome.kind === 'retry') throwRetry(outcome);
      return countTestPushes(deps.em, input.sendIds);
    },
  };
}
