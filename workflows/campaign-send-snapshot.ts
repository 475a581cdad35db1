import { ActivityFailure, CancellationScope, condition, isCancellation, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { readCampaignCounts, sendCampaignShard, sendHeldCampaignPushes } from './campaign-send-activities.ts';
import {
  conversionRateOf,
  ctrOf,
  type CampaignCounts,
  type CampaignRunGroup,
  type CampaignRunState,
  type CampaignSendGroup,
} from './campaign-send.contract.ts';
import { describeProgress, describeSendStart, showRun } from './campaign-send-details.ts';

/** The snapshot `beginCampaignSend` took: its audience, its shards by group, and how many to send side by side. */
export type Snapshot = Extract<Awaited<ReturnType<Activities['beginCampaignSend']>>, { outcome: 'started' }>;

/** How often a sending run reads its counts for the `state` query and its details. */
const refreshEveryMs = 15_000;

/** What the lanes, the groups' timers and the held pushes of one send share. */
interface Sending {
  notificationId: string;
  run: CampaignRunState;
  lanes: number;
  /** Cancelled when a shard fails for good: no lane takes another shard, and groups still waiting are not sent. */
  scope: CancellationScope;
  failure: ActivityFailure | undefined;
  /** Activities under way (shards, held pushes): none between a local-time send's groups. */
  active: number;
  groupsDone: boolean;
  /** When the next push quiet hours held is due, as the last activity to look said; held pushes exist once one did. */
  nextHeld: number | null;
  sawHeld: boolean;
}

/** The counts as read, with the rates they make. */
export const applyCounts = (run: CampaignRunState, counts: CampaignCounts) =>
  Object.assign(run, counts, { ctr: ctrOf(counts), conversionRate: conversionRateOf(counts) });

/**
 * Sends a snapshot: each group at its time (a send in local time; otherwise the one group at once), its shards a few
 * at a time (each one activity), and the pushes quiet hours held when they are due. Throws the failure of a shard that
 * failed for good, once the shards under way have stopped. Runs inside the send's cancellation scope.
 */
export async function sendSnapshot(run: CampaignRunState, notificationId: string, snapshot: Snapshot): Promise<void> {
  const { groups } = snapshot;
  if (groups.some((group) => group.sendAt !== null)) run.groups = groups.map(groupView);
  Object.assign(run, { audience: snapshot.audience, startedAt: new Date(snapshot.startedAt).toISOString(), shards: { done: 0, total: snapshot.shards } });
  showRun(run, 'SENDING', describeSendStart(run, snapshot.lanes));
  const sending: Sending = { notificationId, run, lanes: snapshot.lanes, scope: new CancellationScope(), failure: undefined, active: 0, groupsDone: false, nextHeld: null, sawHeld: false };
  const work = sending.scope.run(() => Promise.all([sendGroups(sending, groups), unlessFailed(sending, () => sendHeld(sending))]));
  await refreshWhileSending(sending, work);
  await work;
  if (sending.failure !== undefined) throw sending.failure;
}

const groupView = (group: CampaignSendGroup): CampaignRunGroup => ({
  utcOffsetMinutes: group.utcOffsetMinutes,
  sendAt: group.sendAt,
  devices: group.devices,
  shards: group.shards.length,
  state: group.expired ? 'expired' : 'waiting',
});

async function sendGroups(sending: Sending, groups: CampaignSendGroup[]): Promise<void> {
  await Promise.all(groups.map((group, index) => sendGroup(sending, group, sending.run.groups[index])));
  sending.groupsDone = true;
}

/** Waits for the group's time, then sends its shards in lanes; an expired group is never sent. */
async function sendGroup(sending: Sending, group: CampaignSendGroup, view: CampaignRunGroup | undefined): Promise<void> {
  if (group.expired) return;
  const waitMs = group.sendAt === null ? 0 : group.sendAt - Date.now();
  if (waitMs > 0 && !(await unlessFailed(sending, () => sleep(waitMs)))) return;
  sending.active++;
  if (view) view.state = 'sending';
  const cursor = { next: 0 };
  try {
    await Promise.all(Array.from({ length: Math.min(sending.lanes, group.shards.length) }, () => sendShards(sending, group.shards, cursor)));
  } finally {
    sending.active--;
  }
  if (view && sending.failure === undefined) {
    view.state = 'sent';
    showRun(sending.run, 'SENDING', describeProgress(sending.run));
  }
}

/** One lane: takes the group's next shard until none is left or a shard failed for good. */
async function sendShards(sending: Sending, shards: number[], cursor: { next: number }): Promise<void> {
  while (sending.failure === undefined && cursor.next < shards.length) {
    const shard = shards[cursor.next++]!;
    try {
      noteHeld(sending, await sendCampaignShard({ notificationId: sending.notificationId, shard }));
      sending.run.shards.done++;
    } catch (error) {
      if (isCancellation(error)) {
        // Cancelled by another lane's failure: stop quietly. Cancelled from outside: the send is cancelled.
        if (sending.failure !== undefined) return;
        throw error;
      }
      if (!(error instanceof ActivityFailure)) throw error;
      sending.failure = error;
      sending.scope.cancel();
    }
  }
}

/**
 * Sends the pushes quiet hours held, each batch when it is due (a timer, woken early when an earlier one is held),
 * until every group is done and nothing is held. The last look comes after every group: an answer that arrived out
 * of order cannot make it stop early.
 */
async function sendHeld(sending: Sending): Promise<void> {
  for (;;) {
    await condition(() => sending.nextHeld !== null || sending.groupsDone);
    if (sending.nextHeld === null) {
      if (!sending.sawHeld) return;
      sending.sawHeld = false;
      noteHeld(sending, await sendHeldCampaignPushes({ notificationId: sending.notificationId }));
      if (sending.nextHeld === null) return;
      continue;
    }
    const due: number = sending.nextHeld;
    const waitMs = due - Date.now();
    if (waitMs > 0 && sending.active === 0) showRun(sending.run, 'SENDING', `waiting for pushes held by quiet hours, the next due at ${new Date(due).toISOString()}`);
    if (waitMs > 0 && (await condition(() => sending.nextHeld !== null && sending.nextHeld < due, waitMs))) continue;
    sending.active++;
    try {
      noteHeld(sending, await sendHeldCampaignPushes({ notificationId: sending.notificationId }));
    } finally {
      sending.active--;
    }
  }
}

function noteHeld(sending: Sending, result: { nextHeld: number | null }): void {
  sending.nextHeld = result.nextHeld;
  sending.sawHeld ||= result.nextHeld !== null;
}

/** Runs `step` unless another lane's failure cancelled it: then quietly answers false. */
async function unlessFailed(sending: Sending, step: () => Promise<unknown>): Promise<boolean> {
  try {
    await step();
    return true;
  } catch (error) {
    if (isCancellation(error) && sending.failure !== undefined) return false;
    throw error;
  }
}

/** While activities run, reads the counts every `refreshEveryMs`; between local-time groups it waits on their timers alone. */
async function refreshWhileSending(sending: Sending, work: Promise<unknown>): Promise<void> {
  let allSent = false;
  void work.then(
    () => (allSent = true),
    () => (allSent = true),
  );
  while (!allSent) {
    if (sending.active === 0) {
      await condition(() => allSent || sending.active > 0);
      continue;
    }
    if (await condition(() => allSent, refreshEveryMs)) return;
    applyCounts(sending.run, await readCampaignCounts({ notificationId: sending.notificationId }));
    showRun(sending.run, 'SENDING', describeProgress(sending.run));
  }
}
