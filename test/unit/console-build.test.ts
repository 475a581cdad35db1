import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt, hashConsoleSources } from '../../src/dev/console-build.ts';

const scratch = await mkdtemp(join(tmpdir(), 'rp-console-build-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('building the console when its sources changed (npm start, the tests)', () => {
  it('builds once with one line, leaves an up-to-date build alone silently, and builds again when the hash differs', { timeout: 120_000 }, async () => {
    const outDir = join(scratch, 'console');
    const lines: string[] = [];
    expect(await ensureConsoleBuilt((line) => lines.push(line), outDir)).toBe('built');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^console: no build yet; built \S+ in \d+\.\d s$/);
    expect((await readFile(join(outDir, 'source-hash.txt'), 'utf8')).trim()).toBe(await hashConsoleSources());
    expect(await readFile(join(outDir, 'index.html'), 'utf8')).toContain('/console/assets/');
    const assets = await readdir(join(outDir, 'assets'));
    expect(assets.filter((name) => name.endsWith('.js.gz')).length).toBe(assets.filter((name) => name.endsWith('.js')).length);

    expect(await ensureConsoleBuilt((line) => lines.push(line), outDir)).toBe('fresh');
    expect(lines).toHaveLength(1);

    await writeFile(join(outDir, 'source-hash.txt'), 'from other sources\n');
    expect(await ensureConsoleBuilt((line) => lines.push(line), outDir)).toBe('built');
    expect(lines[1]).toMatch(/^console: sources changed; built /);
    // Built into a staging folder and renamed into place: nothing is left beside it.
    expect((await readdir(scratch)).filter((name) => name !== 'sources')).toEqual(['console']);
  });
});

describe("the console's source hash", () => {
  it('changes with a source file, and not with the type check’s incremental state or a dotfile', async () => {
    const copy = join(scratch, 'sources');
    await cp(fileURLToPath(new URL('../../console', import.meta.url)), copy, { recursive: true, filter: (path) => !path.endsWith('.tsbuildinfo') });
    const before = await hashConsoleSources(copy);
    expect(before).toBe(await hashConsoleSources());
    await writeFile(join(copy, 'tsconfig.tsbuildinfo'), 'not a source');
    await writeFile(join(copy, 'src', '.notes.swp'), 'not a source');
    expect(await hashConsoleSources(copy)).toBe(before);
    await writeFile(join(copy, 'src', 'new-page.tsx'), 'export {};\n');
    expect(await hashConsoleSources(copy)).not.toBe(before);
  });
});
