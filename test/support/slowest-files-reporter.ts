import type { Reporter, TestModule } from 'vitest/node';

/** A test file and the time it held a worker: its setup files, its import and collection, its tests and hooks. */
export interface FileTime {
  file: string;
  ms: number;
}

/** What of a vitest `TestModule` the time is read from. */
export interface TimedModule {
  relativeModuleId: string;
  diagnostic(): { setupDuration: number; collectDuration: number; duration: number };
}

export function fileTime(module: TimedModule): FileTime {
  const { setupDuration, collectDuration, duration } = module.diagnostic();
  return { file: module.relativeModuleId, ms: setupDuration + collectDuration + duration };
}

/** The `count` slowest files, slowest first, one a line, as the end of a run prints them. */
export function formatSlowestFiles(times: FileTime[], count = 10): string {
  const slowest = [...times].sort((a, b) => b.ms - a.ms).slice(0, count);
  if (slowest.length === 0) return '';
  const seconds = slowest.map(({ ms }) => (ms / 1000).toFixed(1));
  const width = Math.max(...seconds.map((text) => text.length));
  const lines = slowest.map(({ file }, index) => `  ${seconds[index]!.padStart(width)} s  ${file}`);
  return [`Slowest ${slowest.length} test files (setup, import and tests):`, ...lines, ''].join('\n');
}

/**
 * Prints the slowest ten test files after vitest's own summary, so that a run that got slower says where the time
 * went (vitest.config.ts adds it beside the default reporter).
 */
export class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const report = formatSlowestFiles(modules.map(fileTime));
    if (report) process.stdout.write(`\n${report}`);
  }
}
