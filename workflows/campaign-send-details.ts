import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { SendState } from '../src/sandbox-safe/search-attributes.ts';
import { formatUtcOffset } from '../src/sandbox-safe/utc-offset.ts';
import type { CampaignEndState, CampaignRunGroup, CampaignRunState, CampaignRunStateName } from './campaign-send.contract.ts';

// What a send run shows the operator: its SendState search attribute, and its details in the Temporal UI (User
// Metadata). A send in local time speaks of its groups, each sent at its own time, and of the shards within them.

/** Moves the run to `state` and shows what it is doing. Details are no command: replay does not see them. */
export function showRun(run: CampaignRunState, state: CampaignRunStateName, doing: string): void {
  if (state !== run.state) upsertSearchAttributes([{ key: SendState, value: state }]);
  run.state = state;
  setCurrentDetails(describeRun(run, doing));
}

export function describeRun(run: CampaignRunState, doing: string): string {
  return [
    `**${run.state}** · ${doing}`,
    `audience: ${run.audience ?? '—'} · sent ${run.sent} · failed ${run.failed} · unregistered ${run.unregistered} · ${describeCounts(run)}`,
    run.playTime === null
      ? 'not scheduled'
      : `playTime: ${iso(run.playTime)}${run.sendInLocalTime ? ' in each device’s local time' : ''} · segment ${run.filterId}`,
    ...run.groups.map(describeGroup),
  ].join('\n');
}

/** What the send is doing once its snapshot is taken. */
export function describeSendStart(run: CampaignRunState, lanes: number): string {
  const throttle = run.ratePerMinute ? `, at most ${run.ratePerMinute} a minute` : '';
  if (run.groups.length === 0) return `sending ${run.audience ?? 0} devices in ${count(run.shards.total, 'shard')}, ${lanes} at a time${throttle}`;
  const { toSend, expired } = groupsOf(run);
  const devices = toSend.reduce((sum, group) => sum + group.devices, 0);
  const left = expired.length > 0 ? ` (${count(expired.length, 'more group')} expired: not sent)` : '';
  return `sending ${devices} devices in ${count(toSend.length, 'local-time group')}, each at its own time${left}: ${count(shardsOf(toSend), 'shard')}, up to ${lanes} at a time in a group${throttle}`;
}

/** How far the sending has come: shards, or a local-time send's groups (which are sent, which is next). */
export function describeProgress(run: CampaignRunState): string {
  if (run.groups.length === 0) return `${run.shards.done} of ${count(run.shards.total, 'shard')} sent`;
  const { toSend } = groupsOf(run);
  const sending = toSend.filter((group) => group.state === 'sending');
  const next = toSend.find((group) => group.state === 'waiting');
  return [
    `${toSend.filter((group) => group.state === 'sent').length} of ${count(toSend.length, 'group')} sent`,
    ...(sending.length > 0 ? [`sending ${sending.map(zoneOf).join(', ')}`] : []),
    ...(next ? [`next: ${zoneOf(next)} at ${iso(next.sendAt)}`] : []),
  ].join(' · ');
}

export function describeEnd(state: CampaignEndState, run: CampaignRunState): string {
  switch (state) {
    case 'SENT':
      return `sent to ${run.sent} of ${run.audience ?? 0} devices`;
    case 'EXPIRED':
      return `expired: ${run.reason ?? 'playTime + expiry passed'}; nothing was sent`;
    case 'CANCELLED':
      return 'cancelled: nothing more is sent';
    case 'FAILED':
      return `ended FAILED${run.reason ? `: ${run.reason}` : ''}`;
  }
}

/** The shards done of those to send: a local-time send counts its groups, and its shards without the expired groups'. */
function describeCounts(run: CampaignRunState): string {
  if (run.groups.length === 0) return `shards ${run.shards.done}/${run.shards.total}`;
  const { toSend, expired } = groupsOf(run);
  const sent = toSend.filter((group) => group.state === 'sent').length;
  return `groups ${sent}/${toSend.length} sent${expired.length > 0 ? `, ${expired.length} expired` : ''} · shards ${run.shards.done}/${shardsOf(toSend)}`;
}

function describeGroup(group: CampaignRunGroup): string {
  const state = group.state === 'expired' ? 'expired (its time plus the message’s expiry had passed): not sent' : group.state;
  return `- ${zoneOf(group)} at ${iso(group.sendAt)}: ${group.devices} devices in ${count(group.shards, 'shard')}, ${state}`;
}

const groupsOf = (run: CampaignRunState) => ({
  toSend: run.groups.filter((group) => group.state !== 'expired'),
  expired: run.groups.filter((group) => group.state === 'expired'),
});
const shardsOf = (groups: CampaignRunGroup[]) => groups.reduce((sum, group) => sum + group.shards, 0);
const zoneOf = (group: CampaignRunGroup) => (group.utcOffsetMinutes === null ? 'the whole audience' : `UTC${formatUtcOffset(group.utcOffsetMinutes)}`);
const iso = (ms: number | null) => (ms === null ? 'now' : new Date(ms).toISOString());
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
