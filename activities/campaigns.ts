import { beginCampaignSend } from '../src/domain/campaigns/begin-campaign-send.ts';
import { countCampaign } from '../src/domain/campaigns/campaign-counts.ts';
import { readCampaignMessage } from '../src/domain/campaigns/campaign-message.ts';
import { finishCampaignSend } from '../src/domain/campaigns/finish-campaign-send.ts';
import type { CampaignEndState } from '../workflows/campaign-send.contract.ts';
import { sendCampaignShard } from '../src/domain/campaigns/send-campaign-shard.ts';
import { countTestPushes } from '../src/domain/campaigns/test-push-counts.ts';
import { deliverPushes } from '../src/domain/sends/deliver-pushes.ts';
import { loadPushContent } from '../src/domain/sends/push-content.ts';
import { wholeRange, type DeviceRange } from '../src/domain/sends/send-scope.ts';
import type { ActivityDeps } from './deps.ts';
import { withDomainFailures } from './domain-failures.ts';
import { engineDeps, throwRetry } from './send-engine.ts';

/** A campaign send run's I/O (workflows/campaign-send.ts) and a test send's (workflows/push-test.ts). */
export function createCampaignActivities({ orm, temporal, delivery, push }: ActivityDeps) {
  const publishDeps = () => ({ em: orm.em.fork(), temporal, delivery });
  return {
    readCampaignMessage(input: { notificationId: string }) {
      return readCampaignMessage(orm.em.fork(), input.notificationId);
    },
    beginCampaignSend(input: { notificationId: string; filterId: string; playTime: number }) {
      return withDomainFailures(() => beginCampaignSend(publishDeps(), input));
    },
    /** One shard in one activity: each wave done is heartbeated, and a retry resumes after the last one. */
    async sendCampaignShard(input: { notificationId: string; range: DeviceRange }): Promise<void> {
      const { deps, resumeAfter } = engineDeps({ orm, push });
      const outcome = await sendCampaignShard(deps, { ...input, resumeAfter });
      if (outcome.kind === 'retry') throwRetry(outcome);
    },
    readCampaignCounts(input: { notificationId: string }) {
      return countCampaign(orm.em.fork(), input.notificationId);
    },
    finishCampaignSend(input: { notificationId: string; state: CampaignEndState; reason: string | null }) {
      return finishCampaignSend(publishDeps(), input);
    },
    async sendTestPushes(input: { notificationId: string; sendIds: string[] }) {
      const { deps, resumeAfter } = engineDeps({ orm, push });
      const outcome = await deliverPushes(deps, {
        scope: { kind: 'test', sendIds: input.sendIds },
        range: wholeRange,
        resumeAfter,
        notification: await loadPushContent(deps.em, input.notificationId),
        data: { test: 'true' },
      });
      if (outcome.kind === 'retry') throwRetry(outcome);
      return countTestPushes(deps.em, input.sendIds);
    },
  };
}
