import { access, chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeaweedFs } from '../../src/dev/seaweedfs-server.ts';

// The launcher's failures, with stand-in `weed` binaries (SEAWEEDFS_PATH): a start that fails says why and leaves
// nothing behind. The real server is started by test/storage/object-storage.test.ts.

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rp-fake-weed-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** A `weed` that is this shell script; it prints where its data would go (`-dir=`) to stderr first. */
async function fakeWeed(name: string, body: string): Promise<NodeJS.ProcessEnv> {
  const path = join(scratch, name);
  await writeFile(path, `#!/bin/sh\nfor arg; do case "$arg" in -dir=*) echo "data in \${arg#-dir=}" >&2;; esac; done\n${body}\n`);
  await chmod(path, 0o755);
  return { ...process.env, SEAWEEDFS_PATH: path };
}

const dataDirIn = (message: string) => /data in (\S+)/.exec(message)?.[1];
const exists = (path: string) => access(path).then(() => true, () => false);

describe('starting SeaweedFS', () => {
  it('fails at once when weed exits, with what it wrote, and removes its data', async () => {
    const env = await fakeWeed('exits', 'echo "F1128 fail to load config file: no such file" >&2\nexit 3');
    const started = Date.now();
    const failure: Error = await startSeaweedFs({ env, progress: () => undefined }).then(() => expect.fail('it started'), (error: Error) => error);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failure.message).toMatch(/^SeaweedFS at http:\/\/127\.0\.0\.1:\d+ did not start: it exited with code 3\n/);
    expect(failure.message).toContain('F1128 fail to load config file: no such file');
    const dataDir = dataDirIn(failure.message);
    expect(dataDir).toBeDefined();
    expect(await exists(dataDir!)).toBe(false);
  });

  it('gives up on a server that never answers, stops it, and removes its data', async () => {
    const env = await fakeWeed('silent', 'exec sleep 120');
    const failure: Error = await startSeaweedFs({ env, progress: () => undefined, startTimeoutMs: 1500 }).then(() => expect.fail('it started'), (error: Error) => error);
    expect(failure.message).toMatch(/did not start: it did not create the bucket within 1\.5 s/);
    expect(await exists(dataDirIn(failure.message)!)).toBe(false);
  });
});
