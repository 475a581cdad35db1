import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EmbeddedPostgresError, startEmbeddedPostgres } from '../../src/embedded/postgres.ts';
import { createLogger } from '../../src/logger.ts';

const run = async (script: string, env: NodeJS.ProcessEnv) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script], { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

const key = Buffer.alloc(32, 3).toString('base64');

describe('entry points refuse a bad configuration with one line naming the variable', () => {
  it.each([
    ['src/main/api.ts', { TEMPORAL_ADDRESS: 'localhost:7233', ADMIN_TOKEN: 'a'.repeat(32), SECRETS_KEY: key }, 'Configuration error: DATABASE_URL is required'],
    ['src/main/worker.ts', { DATABASE_URL: 'postgres://x@localhost/db', TEMPORAL_ADDRESS: 'nope', SECRETS_KEY: key }, 'Configuration error: TEMPORAL_ADDRESS is invalid: must be host:port'],
    ['src/main/migrate.ts', { DATABASE_URL: 'http://example.com' }, 'Configuration error: DATABASE_URL is invalid: must be a postgres:// URL'],
    ['src/main/start.ts', { PORT: 'eighty' }, 'Configuration error: PORT is invalid'],
  ])('%s', async (script, env, expected) => {
    const result = await run(script, env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toContain(expected);
    expect(result.stderr).not.toMatch(/\n\s+at /);
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
