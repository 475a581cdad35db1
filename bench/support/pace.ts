/**
 * An open-loop schedule shared by a load's clients: unit number i is due i / ratePerSecond after `startedAt`
 * (performance.now() ms), and `untilDue(i)` waits for that moment. A load paced this way holds its rate as long as its
 * clients can carry it, rather than running as fast as the service answers.
 */
export function pace(ratePerSecond: number, startedAt = performance.now()): (index: number) => Promise<void> {
  return async (index) => {
    const wait = startedAt + (index * 1000) / ratePerSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  };
}
