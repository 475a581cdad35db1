import { access } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { timingFiles } from '../../vitest.config.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('vitest.config.ts', () => {
  it('names only test files that exist among those run one at a time (a renamed one would run beside others)', async () => {
    const missing: string[] = [];
    for (const file of timingFiles) await access(`${root}${file}`).catch(() => missing.push(file));
    expect(missing).toEqual([]);
  });
});
