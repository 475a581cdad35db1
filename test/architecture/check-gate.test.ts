import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm test` runs `npm run check` (the import rules, tsc, then type-aware ESLint) before the suite. These tests break
 * a scratch copy of the project on purpose and run the gate's three commands there, so a gate that stopped biting
 * would fail here. One copy holds every defect, and the three commands run side by side: each tool runs once.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const workflow = 'workflows/self-test.ts';

/**
 * The code and the gate's configuration (the import rules included); the rest of test/ and bench/ are left out
 * (bench/ empty), as the defects go into workflows/ and src/.
 */
async function scratchCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rp-gate-'));
  for (const entry of ['package.json', 'tsconfig.json', 'eslint.config.js', 'src', 'workflows', 'activities', 'console', 'test/architecture/dependency-rules.cjs']) {
    await cp(join(root, entry), join(dir, entry), { recursive: true });
  }
  await mkdir(join(dir, 'bench'));
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

function runScript(cwd: string, script: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', script], { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

let scratch: string | undefined;
let importRules: Promise<{ code: number; output: string }>;
let typecheck: Promise<{ code: number; output: string }>;
let lint: Promise<{ code: number; output: string }>;

beforeAll(async () => {
  scratch = await scratchCopy();
  // A type error, and the classic silent bug that type-checks: an activity started and never awaited.
  await appendFile(join(scratch, workflow), `\nexport const deliberatelyWrong: number = 'not a number';\n`);
  const source = await readFile(join(scratch, workflow), 'utf8');
  const broken = source.replace('  const databaseNow = await readDatabaseClock();', '  readDatabaseClock();\n  const databaseNow = await readDatabaseClock();');
  expect(broken).not.toBe(source);
  await writeFile(join(scratch, workflow), broken);
  // Both directions the import rules forbid: the domain reaching into the HTTP edge, and into the outbox relays.
  await appendFile(join(scratch, 'src/domain/deliveries/redeliver.ts'), `\nimport '../../http/body.ts';\nimport '../../outbox/relay-loop.ts';\n`);
  // In the console (the browser app): a hook called conditionally, which type-checks and breaks React's rules.
  await appendFile(
    join(scratch, 'console/src/components/use-document-title.ts'),
    `\nexport function useDeliberatelyConditional(on: boolean): void {\n  if (on) useEffect(() => undefined);\n}\n`,
  );
  importRules = runScript(scratch, 'lint:deps');
  typecheck = runScript(scratch, 'typecheck');
  lint = runScript(scratch, 'lint');
  await Promise.all([importRules, typecheck, lint]);
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the check gate (npm run check, run by npm test)', () => {
  it('runs the import rules, the type check, then the lint, before the suite', async () => {
    const { scripts } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.test).toMatch(/^npm run check && /);
    // Each step must pass for the next to run: no `;` or `||` lets a failure through.
    expect(scripts.check).not.toMatch(/;|\|\|/);
    expect(scripts.check!.split(' && ').slice(0, 3)).toEqual(['npm run lint:deps', 'npm run typecheck', 'npm run lint']);
    expect(scripts['lint:deps']).toMatch(/^depcruise\b/);
    expect(scripts.typecheck).toMatch(/^tsc\b/);
    expect(scripts.lint).toMatch(/^eslint\b/);
  });

  it('fails on a type error in a workflow', async () => {
    const { code, output } = await typecheck;
    expect(code).not.toBe(0);
    expect(output).toMatch(/workflows\/self-test\.ts\(\d+,\d+\): error TS2322/);
  });

  it('fails on a floating promise in a workflow, though it type-checks', async () => {
    const { code, output } = await lint;
    expect(code).not.toBe(0);
    expect(output).toMatch(/self-test\.ts[\s\S]*@typescript-eslint\/no-floating-promises/);
    // The type check reports the deliberate type error alone: the unawaited call type-checks.
    expect([...(await typecheck).output.matchAll(/error TS\d+/g)]).toHaveLength(1);
  });

  it('lints the console with the Rules of React', async () => {
    const { code, output } = await lint;
    expect(code).not.toBe(0);
    expect(output).toMatch(/console\/src\/components\/use-document-title\.ts[\s\S]*react-hooks\/rules-of-hooks/);
  });

  it('fails on a layer imported the wrong way round', async () => {
    const { code, output } = await importRules;
    expect(code).not.toBe(0);
    expect(output).toMatch(/domain-not-its-callers: src\/domain\/deliveries\/redeliver\.ts → src\/http\/body\.ts/);
    expect(output).toMatch(/domain-not-its-callers: src\/domain\/deliveries\/redeliver\.ts → src\/outbox\/relay-loop\.ts/);
  });
});
