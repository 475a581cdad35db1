import type { Logger } from '../logger.ts';

export interface CoalescedWake {
  /** Asks for a wake; never waits and never throws. */
  wake: () => void;
  /** Drops a pending wake and waits for the one in flight. */
  close: () => Promise<void>;
}

/**
 * Wakes an outbox's relays at most once per `windowMs` per process, after the rows are committed: the first call
 * sends at once (one event alone is not delayed), calls within the window fold into one more send at its end (so a
 * row committed just after a relay looked is not left to the poll). Under load the writers no longer notify once per
 * row: Postgres serialises the commits of transactions that NOTIFY, and every notification wakes every listening
 * relay for a claim. A send that fails is logged and dropped: the rows are committed, and the relays' poll finds them.
 */
export function createCoalescedWake(options: { send: () => Promise<unknown>; windowMs: number; logger: Logger; name: string }): CoalescedWake {
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let trailing: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let closed = false;

  const send = () => {
    trailing = undefined;
    lastSentAt = performance.now();
    const sending = options
      .send()
      .then(
        () => undefined,
        (error: unknown) => options.logger.warn({ err: error, outbox: options.name }, 'waking the relays failed; they find the rows at their next poll'),
      )
      .finally(() => {
        if (inFlight === sending) inFlight = undefined;
      });
    inFlight = sending;
  };

  return {
    wake() {
      if (closed || trailing) return;
      const wait = lastSentAt + options.windowMs - performance.now();
      if (wait <= 0) send();
      else trailing = setTimeout(send, wait);
    },
    async close() {
      closed = true;
      clearTimeout(trailing);
      trailing = undefined;
      await inFlight;
    },
  };
}
