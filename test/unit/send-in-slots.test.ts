import { describe, expect, it } from 'vitest';
import type { PushMessage, PushResult } from '../../src/outbound/push/push-provider.ts';
import { headroomFactor, lateToleranceMs, newSlotCursor, sendInSlots } from '../../src/domain/sends/send-in-slots.ts';

const notification = { notificationId: 'n-1', title: 'Hi', action: 'Open', type: 'PUSH', priority: 'NORMAL', expiry: 1440 };
const messagesOf = (count: number, prefix = 'send'): PushMessage[] =>
  Array.from({ length: count }, (_, index) => ({ sendId: `${prefix}-${index}`, token: `token-${index}`, platform: 'android', notification }));

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

/** The gaps between consecutive hand-overs, in ms. */
const gapsOf = (batches: Array<{ at: number }>) => batches.slice(1).map((batch, index) => batch.at - batches[index]!.at);

// A timer may fire up to a millisecond before its time is due (`sendInSlots` waits only for a millisecond or more),
// and a message handed over up to `lateToleranceMs` late counts as on time.
const timerSlackMs = 1;
/** The least time between two hand-overs at this slot. */
const leastGapMs = (slotMs: number) => slotMs / headroomFactor - lateToleranceMs - timerSlackMs;

describe('sendInSlots: a paced wave, one push per slot', () => {
  it('hands the messages over one at a time, each a tenth of a slot less than a slot after the one before, and answers in order', async () => {
    const provider = recordingProvider();
    const beganAt = performance.now();
    const results = await sendInSlots(provider, messagesOf(5), [{ beganAt, slotMs: 44 }], newSlotCursor());

    expect(results.map((result) => result.sendId)).toEqual(['send-0', 'send-1', 'send-2', 'send-3', 'send-4']);
    expect(provider.batches.map((batch) => batch.sendIds)).toEqual([['send-0'], ['send-1'], ['send-2'], ['send-3'], ['send-4']]);
    provider.batches.forEach((batch, index) => expect(batch.at - beganAt).toBeGreaterThanOrEqual((index * 44) / headroomFactor - timerSlackMs));
  });

  it('keeps to the slower of two paces', async () => {
    const provider = recordingProvider();
    await sendInSlots(provider, messagesOf(3), [{ beganAt: performance.now(), slotMs: 1 }, { beganAt: performance.now(), slotMs: 33 }], newSlotCursor());
    for (const gap of gapsOf(provider.batches)) expect(gap).toBeGreaterThanOrEqual(leastGapMs(33));
  });

  it('never sends at once a wave whose slots began long ago', async () => {
    const provider = recordingProvider();
    // Every slot of the wave began before the call (its claim took that long, or the process was busy).
    await sendInSlots(provider, messagesOf(5), [{ beganAt: performance.now() - 1000, slotMs: 33 }], newSlotCursor());

    expect(provider.batches).toHaveLength(5);
    for (const gap of gapsOf(provider.batches)) expect(gap).toBeGreaterThanOrEqual(leastGapMs(33));
  });

  it('counts the gap from when a batch has left: a hand-over that takes a while does not shorten the next gap', async () => {
    const provider = recordingProvider();
    const record = provider.sendBatch.bind(provider);
    let slowOnce = true;
    // The first hand-over spends 8 ms of the process before its request leaves (a busy process, a slow encode).
    provider.sendBatch = (messages) => {
      const leaveAt = performance.now() + (slowOnce ? 8 : 0);
      slowOnce = false;
      while (performance.now() < leaveAt);
      return record(messages);
    };
    await sendInSlots(provider, messagesOf(2), [{ beganAt: performance.now(), slotMs: 33 }], newSlotCursor());

    expect(provider.batches).toHaveLength(2);
    for (const gap of gapsOf(provider.batches)) expect(gap).toBeGreaterThanOrEqual(leastGapMs(33));
  });

  it('starts the next wave no sooner than the same gap after the last message of the one before', async () => {
    const provider = recordingProvider();
    const cursor = newSlotCursor();
    await sendInSlots(provider, messagesOf(2), [{ beganAt: performance.now(), slotMs: 33 }], cursor);
    // The next wave's slots begin now, as the pace says when the wave before overran its own.
    await sendInSlots(provider, messagesOf(2, 'next'), [{ beganAt: performance.now(), slotMs: 33 }], cursor);

    expect(provider.batches.map((batch) => batch.sendIds)).toEqual([['send-0'], ['send-1'], ['next-0'], ['next-1']]);
    for (const gap of gapsOf(provider.batches)) expect(gap).toBeGreaterThanOrEqual(leastGapMs(33));
  });

  it('hands the messages due within a millisecond over together, and an unpaced wave at once', async () => {
    const paced = recordingProvider();
    await sendInSlots(paced, messagesOf(40), [{ beganAt: performance.now(), slotMs: 0.1 }], newSlotCursor());
    expect(paced.batches.flatMap((batch) => batch.sendIds)).toEqual(messagesOf(40).map((message) => message.sendId));
    expect(paced.batches.length).toBeLessThan(40);

    const unpaced = recordingProvider();
    await sendInSlots(unpaced, messagesOf(3), [], newSlotCursor());
    expect(unpaced.batches.map((batch) => batch.sendIds)).toEqual([['send-0', 'send-1', 'send-2']]);
  });

  it('answers `retry` for the messages whose slot had not begun when the send stopped, and never hands them over', async () => {
    const provider = recordingProvider();
    const stop = new AbortController();
    const sending = sendInSlots(provider, messagesOf(3), [{ beganAt: performance.now(), slotMs: 10_000 }], newSlotCursor(), stop.signal);
    stop.abort();
    const results = await sending;

    expect(provider.batches.map((batch) => batch.sendIds)).toEqual([['send-0']]);
    expect(results.map((result) => result.outcome)).toEqual(['sent', 'retry', 'retry']);
  });
});
