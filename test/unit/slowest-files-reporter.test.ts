import { describe, expect, it } from 'vitest';
import { fileTime, formatSlowestFiles, type TimedModule } from '../support/slowest-files-reporter.ts';

describe('the slowest files at the end of a run', () => {
  it('counts a file’s setup, import and tests, and lists the ten slowest, slowest first', () => {
    const module = (file: string, seconds: number): TimedModule => ({
      relativeModuleId: file,
      diagnostic: () => ({ setupDuration: 100, collectDuration: 400, duration: seconds * 1000 - 500 }),
    });
    const times = Array.from({ length: 12 }, (_, index) => fileTime(module(`test/f${index}.test.ts`, index + 1)));
    expect(times[0]).toEqual({ file: 'test/f0.test.ts', ms: 1000 });
    const printed = formatSlowestFiles([...times, { file: 'test/abtests.test.ts', ms: 134_325 }]).split('\n');
    expect(printed[0]).toBe('Slowest 10 test files (setup, import and tests):');
    expect(printed.slice(1, 4)).toEqual(['  134.3 s  test/abtests.test.ts', '   12.0 s  test/f11.test.ts', '   11.0 s  test/f10.test.ts']);
    expect(printed.filter((line) => line.endsWith('.test.ts'))).toHaveLength(10);
    expect(printed.at(-1)).toBe('');
  });

  it('prints nothing when no file ran', () => {
    expect(formatSlowestFiles([])).toBe('');
  });
});
