import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * `npm test` runs `npm run check` (the import rules, tsc, then type-aware ESLint) before the suite. These tests break
 * a scratch copy of the project on purpose and run the same command there, so a gate that stopped biting would fail
 * here.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const workflow = 'workflows/self-test.ts';
const scratches: string[] = [];

afterEach(async () => {
  await Promise.all(scratches.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * The code and the gate's configuration (the import rules included); the rest of test/ and bench/ are left out
 * (bench/ empty), as the defects go into workflows/ and src/.
 */
async function scratchCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rp-gate-'));
  scratches.push(dir);
  for (const entry of ['package.json', 'tsconfig.json', 'eslint.config.js', 'src', 'workflows', 'activities', 'test/architecture/dependency-rules.cjs']) {
    await cp(join(root, entry), join(dir, entry), { recursive: true });
  }
  await mkdir(join(dir, 'bench'));
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

function runCheck(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', 'check'], { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

/**
 * The floating-promise case runs the whole check (the import rules, tsc, then type-aware ESLint over the scratch copy):
 * 160 s on 2 shared, loaded cores before the import rules joined the check, which add a few seconds.
 */
const wholeCheckTimeoutMs = 300_000;

describe('the check gate (npm run check, run by npm test)', () => {
  it('fails on a type error in a workflow', { timeout: 180_000 }, async () => {
    const dir = await scratchCopy();
    await appendFile(join(dir, workflow), `\nexport const deliberatelyWrong: number = 'not a number';\n`);
    const { code, output } = await runCheck(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(/workflows\/self-test\.ts\(\d+,\d+\): error TS2322/);
  });

  it('fails on a floating promise in a workflow, though it type-checks', { timeout: wholeCheckTimeoutMs }, async () => {
    const dir = await scratchCopy();
    const source = await readFile(join(dir, workflow), 'utf8');
    // The classic silent bug: an activity started and never awaited.
    const broken = source.replace('  const databaseNow = await readDatabaseClock();', '  readDatabaseClock();\n  const databaseNow = await readDatabaseClock();');
    expect(broken).not.toBe(source);
    await writeFile(join(dir, workflow), broken);
    const { code, output } = await runCheck(dir);
    expect(code).not.toBe(0);
    expect(output).not.toMatch(/error TS\d+/);
    expect(output).toMatch(/self-test\.ts[\s\S]*@typescript-eslint\/no-floating-promises/);
  });

  it('fails on a layer imported the wrong way round', { timeout: 180_000 }, async () => {
    const dir = await scratchCopy();
    // Both directions the rules forbid: the domain reaching into the HTTP edge, and into the outbox relays.
    await appendFile(join(dir, 'src/domain/deliveries/redeliver.ts'), `\nimport '../../http/body.ts';\nimport '../../outbox/relay-loop.ts';\n`);
    const { code, output } = await runCheck(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(/domain-not-its-callers: src\/domain\/deliveries\/redeliver\.ts → src\/http\/body\.ts/);
    expect(output).toMatch(/domain-not-its-callers: src\/domain\/deliveries\/redeliver\.ts → src\/outbox\/relay-loop\.ts/);
  });
});
