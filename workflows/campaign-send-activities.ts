import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

/** A send run's activities (workflows/campaign-send.ts), each with the options it runs under. */
// They heartbeat while they run (a large segment's snapshot takes minutes): a worker that dies mid-step is seen within
// 10 s, and the step runs again elsewhere, instead of the send waiting out the 5 minutes.
export const { readCampaignMessage, beginCampaignSend, readCampaignCounts, finishCampaignSend } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { maximumInterval: '1 minute' },
});

// A shard is sent wave by wave in one activity; its heartbeat carries the last wave done, so a retry resumes there.
export const { sendCampaignShard, sendHeldCampaignPushes } = proxyActivities<Activities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '2 minutes' },
});
