import { setTimeout as sleep } from 'node:timers/promises';
import type { PushMessage, PushProvider, PushResult } from '../../outbound/push/push-provider.ts';

const stoppedBeforeItLeft = 'the send stopped before this push left';

/**
 * Sends a wave whose slots have begun, each message when its own slot begins: the i-th `i × slotMs` after the
 * first. A paced wave that went out at once would put a whole wave into the first instant of its slots, so a second
 * could hold two waves (docs/adr/0056). Messages due in the same millisecond (slots under 1 ms, and the unpaced
 * `slotMs` 0) go as one batch. One result per message, in order; a message whose slot had not begun when `signal`
 * aborted comes back `retry`, never sent.
 */
export async function sendInSlots(push: Pick<PushProvider, 'sendBatch'>, messages: PushMessage[], slotMs: number, signal?: AbortSignal): Promise<PushResult[]> {
  const startedAt = performance.now();
  const batches: Array<{ dueMs: number; messages: PushMessage[] }> = [];
  messages.forEach((message, index) => {
    const dueMs = Math.floor(index * slotMs);
    const last = batches.at(-1);
    if (last?.dueMs === dueMs) last.messages.push(message);
    else batches.push({ dueMs, messages: [message] });
  });
  const answers = await Promise.all(
    batches.map(async (batch) => {
      const waitMs = startedAt + batch.dueMs - performance.now();
      if (waitMs >= 1) {
        try {
          await sleep(waitMs, undefined, signal ? { signal } : undefined);
        } catch (error) {
          if (!signal?.aborted) throw error;
        }
      }
      if (signal?.aborted) return batch.messages.map((message): PushResult => ({ sendId: message.sendId, outcome: 'retry', error: stoppedBeforeItLeft }));
      return push.sendBatch(batch.messages, signal);
    }),
  );
  return answers.flat();
}
