import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm test` runs `npm run check` (the import rules, tsc and type-aware ESLint, side by side) before the suite. These
 * tests run the gate itself, with the project's own configuration, on a scratch project that holds nothing but a few
 * files with one defect each, so a gate that stopped biting (or stopped at its first failing step) would fail here.
 * The project's own code is what the gate itself checks; here the tools read a handful of files, so they take seconds.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The gate's configuration, copied as it is. */
const configuration = ['package.json', 'tsconfig.json', 'eslint.config.js', 'console/tsconfig.json', 'test/architecture/dependency-rules.cjs'];

/** Each file with its defect, at a path where the project's rules apply. */
const defects: Record<string, string> = {
  // A type error, and the classic silent bug that type-checks: an activity started and never awaited.
  'workflows/gate-defects.ts': [
    `import { proxyActivities } from '@temporalio/workflow';`,
    ``,
    `const { readClock } = proxyActivities<{ readClock(): Promise<number> }>({ startToCloseTimeout: '1 minute' });`,
    ``,
    `export async function gateDefects(): Promise<number> {`,
    `  readClock();`,
    `  return readClock();`,
    `}`,
    ``,
    `export const deliberatelyWrong: number = 'not a number';`,
  ].join('\n'),
  // Both directions the import rules forbid: the domain reaching into the HTTP edge, and into the outbox relays.
  'src/domain/deliveries/redeliver.ts': `import '../../http/body.ts';\nimport '../../outbox/relay-loop.ts';\n\nexport const redeliver = 1;`,
  'src/http/body.ts': 'export const body = 1;',
  'src/outbox/relay-loop.ts': 'export const relayLoop = 1;',
  // A helper shared by many test files that would load the Temporal worker package into each of their processes.
  'test/support/gate-helper.ts': `import '@temporalio/testing';\n\nexport const helper = 1;`,
  // In the console (the browser app): a hook called conditionally, which type-checks and breaks React's rules.
  'console/src/components/use-document-title.ts': [
    `import { useEffect } from 'react';`,
    ``,
    `export function useDeliberatelyConditional(on: boolean): void {`,
    `  if (on) useEffect(() => undefined);`,
    `}`,
  ].join('\n'),
};

async function scratchProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rp-gate-'));
  for (const entry of configuration) await cp(join(root, entry), join(dir, entry));
  for (const [path, source] of Object.entries(defects)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), `${source}\n`);
  }
  // The folders the import rules are given.
  for (const folder of ['activities', 'bench']) await mkdir(join(dir, folder), { recursive: true });
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
let check: { code: number; output: string };

beforeAll(async () => {
  scratch = await scratchProject();
  check = await runScript(scratch, 'check');
}, 300_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the check gate (npm run check, run by npm test)', () => {
  it('runs the import rules, the type check and the lint, each to its end, before the suite', async () => {
    const { scripts } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.test).toMatch(/^npm run check && /);
    // Side by side on the machine's cores, each with its output in one piece; one failing step fails the gate
    // without hiding what the others found.
    expect(scripts.check).toBe('run-p --aggregate-output --continue-on-error lint:deps typecheck lint');
    expect(scripts['lint:deps']).toMatch(/^depcruise\b/);
    expect(scripts.typecheck).toMatch(/^tsc\b/);
    expect(scripts.lint).toMatch(/^eslint\b/);
  });

  it('fails on a type error in a workflow', async () => {
    const { code, output } = check;
    expect(code).not.toBe(0);
    expect(output).toMatch(/workflows\/gate-defects\.ts\(\d+,\d+\): error TS2322/);
  });

  it('fails on a floating promise in a workflow, though it type-checks', async () => {
    const { code, output } = check;
    expect(code).not.toBe(0);
    expect(output).toMatch(/gate-defects\.ts[\s\S]*@typescript-eslint\/no-floating-promises/);
    // The type check reports the deliberate type error alone: the unawaited call type-checks.
    expect([...output.matchAll(/error TS\d+/g)]).toHaveLength(1);
  });

  it('lints the console with the Rules of React', async () => {
    const { code, output } = check;
    expect(code).not.toBe(0);
    expect(output).toMatch(/console\/src\/components\/use-document-title\.ts[\s\S]*react-hooks\/rules-of-hooks/);
  });

  it('fails on a layer imported the wrong way round', async () => {
    const { code, output } = check;
    expect(code).not.toBe(0);
    expect(output).toMatch(/domain-not-its-callers: src\/domain\/deliveries\/redeliver\.ts → src\/http\/body\.ts/);
    expect(output).toMatch(/domain-not-its-callers: src\/domain\/deliveries\/redeliver\.ts → src\/outbox\/relay-loop\.ts/);
  });

  it('fails on a shared test helper that loads the Temporal worker package', async () => {
    const { code, output } = check;
    expect(code).not.toBe(0);
    expect(output).toMatch(/test-support-without-worker: test\/support\/gate-helper\.ts → node_modules\/@temporalio\/testing\//);
  });
});
