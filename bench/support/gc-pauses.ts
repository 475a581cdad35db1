import { PerformanceObserver } from 'node:perf_hooks';

export interface GcPauses {
  count: number;
  totalMs: number;
  maxMs: number;
}

/**
 * This process's garbage-collection pauses (the main thread's) since it started watching or last reset: so that a
 * bench can tell a pause of its event loop that collection made from one where the process waited for a core.
 * Entries arrive on a later tick, so a pause in the last moment of a phase may be counted in the next.
 */
export function watchGcPauses(): { reset(): void; figures(): GcPauses; stop(): void } {
  let durations: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) durations.push(entry.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    reset: () => {
      durations = [];
    },
    figures: () => ({
      count: durations.length,
      totalMs: durations.reduce((sum, duration) => sum + duration, 0),
      maxMs: durations.reduce((max, duration) => Math.max(max, duration), 0),
    }),
    stop: () => observer.disconnect(),
  };
}
