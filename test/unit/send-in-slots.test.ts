import { describe, expect, it } from 'vitest';
import type { PushMessage, PushResult } from '../../src/outbound/push/push-provider.ts';
import { sendInSlots } from '../../src/domain/sends/send-in-slots.ts';

const notification = { notificationId: 'n-1', title: 'Hi', action: 'Open', type: 'PUSH', priority: 'NORMAL', expiry: 1440 };
const messagesOf = (count: number): PushMessage[] =>
  Array.from({ length: count }, (_, index) => ({ sendId: `send-${index}`, token: `token-${index}`, platform: 'android', notification }));

/** A provider that answers `sent` and notes when each batch was handed over, and what it held. */
function recordingProvider() {
  const batches: Array<{ at: number; sendIds: string[] }> = [];
  return {
    batches,
    async sendBatch(messages: PushMessage[]): Promise<PushResult[]> {
      batches.push({ at: performance.now(), sendIds: messages.map((message) => message.sendId) });
      return messages.map((message) => ({ sendId: message.sendId, outcome: 'sent' }));
    },
  };
}

describe('sendInSlots: a paced wave, one push per slot', () => {
  it('hands each message over when its own slot begins, the i-th i slots after the first, and answers in order', async () => {
    const provider = recordingProvider();
    const startedAt = performance.now();
    const results = await sendInSlots(provider, messagesOf(5), 40);

    expect(results.map((result) => result.sendId)).toEqual(['send-0', 'send-1', 'send-2', 'send-3', 'send-4']);
    expect(provider.batches.map((batch) => batch.sendIds)).toEqual([['send-0'], ['send-1'], ['send-2'], ['send-3'], ['send-4']]);
    // Never before its slot (a timer may fire a little late, never early: 1 ms for the timer's rounding).
    provider.batches.forEach((batch, index) => expect(batch.at - startedAt).toBeGreaterThanOrEqual(index * 40 - 1));
  });

  it('hands the messages due in the same millisecond over as one batch, and an unpaced wave at once', async () => {
    const paced = recordingProvider();
    await sendInSlots(paced, messagesOf(6), 0.5);
    expect(paced.batches.map((batch) => batch.sendIds)).toEqual([['send-0', 'send-1'], ['send-2', 'send-3'], ['send-4', 'send-5']]);

    const unpaced = recordingProvider();
    await sendInSlots(unpaced, messagesOf(3), 0);
    expect(unpaced.batches.map((batch) => batch.sendIds)).toEqual([['send-0', 'send-1', 'send-2']]);
  });

  it('answers `retry` for the messages whose slot had not begun when the send stopped, and never hands them over', async () => {
    const provider = recordingProvider();
    const stop = new AbortController();
    const sending = sendInSlots(provider, messagesOf(3), 10_000, stop.signal);
    stop.abort();
    const results = await sending;

    expect(provider.batches.map((batch) => batch.sendIds)).toEqual([['send-0']]);
    expect(results.map((result) => result.outcome)).toEqual(['sent', 'retry', 'retry']);
  });
});
