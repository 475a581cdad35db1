import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

/** A send run's activities (workflows/campaign-send.ts), each with the options it runs under. */
export const { readCampaignMessage, beginCampaignSend, readCampaignCounts, finishCampaignSend } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumInterval: '1 minute' },
});

// A shard is sent wave by wave in one activity; its heartbeat carries the last wave done, so a retry resumes there.
export const { sendCampaignShard, sendHeldCampaignPushes } = proxyActivities<Activities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
});
