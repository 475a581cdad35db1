import type { EntityManager } from '@mikro-orm/postgresql';
import { conversionRateOf, ctrOf, type CampaignCounts, type CampaignRunStateName } from '../../../workflows/campaign-send.contract.ts';
import { Campaign } from '../../persistence/entities/campaign.ts';
import type { Notification } from '../../persistence/entities/notification.ts';
import { countCampaign } from './campaign-counts.ts';
import { viewCampaignGroups, type CampaignGroupView } from './campaign-groups.ts';
import { isSendable } from './campaign-message.ts';

export type CampaignViewState = 'UNSCHEDULED' | CampaignRunStateName;

/** The `send` of GET /notification/get: where the message's send is, and its pushes counted now. */
export interface CampaignView extends CampaignCounts {
  state: CampaignViewState;
  playTime: number | null;
  filterId: string | null;
  ratePerMinute: number | null;
  sendInLocalTime: boolean;
  /** A send in local time: its groups, once its snapshot is taken. */
  groups: CampaignGroupView[];
  ctr: number | null;
  conversionRate: number | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Why it ended FAILED, CANCELLED or EXPIRED. */
  reason: string | null;
}

export async function viewCampaign(em: EntityManager, notification: Notification): Promise<CampaignView> {
  const campaign = await em.findOne(Campaign, { notificationId: notification.id });
  const state: CampaignViewState = !campaign
    ? 'UNSCHEDULED'
    : campaign.state === 'SCHEDULED' && !isSendable(notification)
      ? 'WAITING_FOR_RECORDING'
      : campaign.state;
  // Before the snapshot there is nothing to count.
  const counts = campaign?.startedAt ? await countCampaign(em, notification.id) : { audience: null, sent: 0, failed: 0, unregistered: 0, skipped: 0, cancelled: 0, expired: 0, capped: 0, quiet: 0, clicked: 0, conversions: 0 };
  return {
    state,
    playTime: campaign?.playTime ?? null,
    filterId: campaign?.filterId || null,
    ratePerMinute: campaign?.ratePerMinute ?? null,
    sendInLocalTime: campaign?.sendInLocalTime ?? false,
    groups: campaign?.sendInLocalTime && campaign.startedAt ? await viewCampaignGroups(em, notification.id, campaign.state) : [],
    ...counts,
    ctr: ctrOf(counts),
    conversionRate: conversionRateOf(counts),
    startedAt: campaign?.startedAt ?? null,
    finishedAt: campaign?.finishedAt ?? null,
    reason: campaign?.reason ?? null,
  };
}
