import { setTimeout as sleep } from 'node:timers/promises';
import type { PushMessage, PushProvider, PushResult } from '../../outbound/push/push-provider.ts';
import type { Slots } from '../../persistence/push-pace.ts';

const stoppedBeforeItLeft = 'the send stopped before this push left';

/**
 * How much faster than its pace a sender hands messages over within a wave: by a tenth at most. Between two waves
 * the answers are awaited, their rows written and the next wave claimed; a wave spread over all its slots would
 * leave no time for that, and every wave would start late. Spread over nine tenths of them, a wave leaves that time,
 * while the pace (one reservation a wave, docs/adr/0056) holds the average: at 600 a minute, one push every 91 ms,
 * at most 11 in any second.
 */
export const headroomFactor = 1.1;

/** How late a timer may fire before the messages it held up are spaced out again rather than caught up. */
export const lateToleranceMs = 2;

/** When one sender's last message was due (`performance.now()` ms), across its waves. */
export interface SlotCursor {
  lastAt: number;
}

/** A sender's cursor before its first message. */
export const newSlotCursor = (): SlotCursor => ({ lastAt: Number.NEGATIVE_INFINITY });

/**
 * Sends a wave once its slots have begun in every pace it drew on, one message at a time: each `slotMs /
 * headroomFactor` after the one before it (`cursor`, across waves), with the longest slot of the paces. A paced wave
 * that went out at once would put a whole wave into the first instant of its slots, so that a second could hold two
 * waves (docs/adr/0056). Messages due within a millisecond of each other (slots under 1 ms, and no pace at all) go as
 * one batch; each is handed over without waiting for the answers before it. One result per message, in order; a
 * message not yet handed over when `signal` aborted comes back `retry`, never sent.
 */
export async function sendInSlots(
  push: Pick<PushProvider, 'sendBatch'>,
  messages: PushMessage[],
  paces: Slots[],
  cursor: SlotCursor,
  signal?: AbortSignal,
): Promise<PushResult[]> {
  const gapMs = Math.max(0, ...paces.map((pace) => pace.slotMs)) / headroomFactor;
  let dueAt = Math.max(...paces.map((pace) => pace.beganAt), cursor.lastAt + gapMs);
  const answers: Array<Promise<PushResult[]>> = [];
  let batch: PushMessage[] = [];
  const handOver = () => {
    if (!batch.length) return;
    answers.push(push.sendBatch(batch, signal));
    batch = [];
    // Counted from the hand-over itself: a pause between a message joining its batch and the batch leaving (a busy
    // process) must not shorten the gap to the next.
    cursor.lastAt = Math.max(cursor.lastAt, performance.now() - lateToleranceMs);
    dueAt = Math.max(dueAt, cursor.lastAt + gapMs);
  };
  for (const [index, message] of messages.entries()) {
    if (dueAt - performance.now() >= 1) {
      handOver();
      await until(dueAt, signal);
    }
    if (signal?.aborted) {
      handOver();
      answers.push(Promise.resolve(messages.slice(index).map((rest): PushResult => ({ sendId: rest.sendId, outcome: 'retry', error: stoppedBeforeItLeft }))));
      break;
    }
    batch.push(message);
    // A timer a millisecond or two late costs nothing: the messages due meanwhile go with this one. A longer delay
    // (a busy process) moves the rest of the wave on, rather than sending every message it held up at once.
    cursor.lastAt = Math.max(dueAt, performance.now() - lateToleranceMs);
    dueAt = cursor.lastAt + gapMs;
  }
  handOver();
  return (await Promise.all(answers)).flat();
}

/** Waits until `at` (`performance.now()` ms), or until `signal` aborts. */
async function until(at: number, signal: AbortSignal | undefined): Promise<void> {
  // A timer counts from the event loop's cached clock, so it may fire a little early: look again when it does.
  for (let waitMs = at - performance.now(); waitMs >= 1 && !signal?.aborted; waitMs = at - performance.now()) {
    try {
      await sleep(Math.ceil(waitMs), undefined, signal ? { signal } : undefined);
    } catch (error) {
      if (!signal?.aborted) throw error;
    }
  }
}
