import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { App } from './app.ts';
import { updatedAtProperty } from './updated-at.ts';

/**
 * What a scheduled message's send run (`send:<notificationId>`) has reached. A message without a row is UNSCHEDULED;
 * a SCHEDULED one whose message is not READY yet reads as WAITING_FOR_RECORDING (src/domain/campaigns/campaign-view.ts).
 */
export const campaignStates = ['SCHEDULED', 'SENDING', 'SENT', 'CANCELLED', 'EXPIRED', 'FAILED'] as const;
export type CampaignState = (typeof campaignStates)[number];
export const endedCampaignStates: readonly CampaignState[] = ['SENT', 'CANCELLED', 'EXPIRED', 'FAILED'];

/**
 * The send of one message to its segment: one row per message, written by `POST /notification/schedule` and then
 * by the message's send run. The pushes themselves are `push_sends` rows of source `campaign`.
 */
export const Campaign = defineEntity({
  name: 'Campaign',
  tableName: 'campaigns',
  properties: {
    notificationId: p.uuid().primary().fieldName('notification_id'),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id'),
    appId: () => p.manyToOne(App).mapToPk().fieldName('app_id'),
    state: p.enum(campaignStates),
    /** Epoch ms; the send starts at this time or as soon as the message is READY after it. */
    playTime: p.bigint('number'),
    filterId: p.string().length(128),
    /** At most this many pushes a minute, spread evenly; null sends as fast as the provider's pace allows. */
    ratePerMinute: p.integer().nullable().fieldName('rate_per_minute'),
    /** playTime's wall-clock time in UTC is each device's own local time to send at (docs/campaigns.md). */
    sendInLocalTime: p.boolean().default(false).fieldName('send_in_local_time'),
    /** The devices the snapshot holds, once sending has started. */
    audience: p.integer().nullable(),
    reason: p.text().nullable(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: updatedAtProperty(),
  },
  indexes: [{ properties: ['appId', 'state'] }],
});

export type Campaign = InferEntity<typeof Campaign>;
