import { chmod, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporalCli } from '../../src/dev/cli-path.ts';
import { startEmbeddedTemporal } from '../../src/dev/embedded-temporal.ts';
import { provisionOnThisMachine } from '../../src/dev/provision-cli.ts';
import { freePort } from '../support/instances.ts';
import { procStatFields } from '../support/proc-stat.ts';

/** The pids of the processes whose command line holds every one of `words` (Linux: /proc). */
async function pidsRunning(words: string[]): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args: string[] = await readFile(`/proc/${entry}/cmdline`, 'utf8').then((text) => text.split('\0'), () => []);
    if (words.every((word) => args.includes(word))) pids.push(Number(entry));
  }
  return pids;
}

/** The niceness of each thread of a process. */
async function threadNiceness(pid: number): Promise<number[]> {
  const tids = await readdir(`/proc/${pid}/task`);
  return Promise.all(tids.map(async (tid) => Number((await procStatFields(`/proc/${pid}/task/${tid}/stat`))[16])));
}

/** The session id of a process. */
async function sessionOf(pid: number): Promise<number> {
  return Number((await procStatFields(`/proc/${pid}/stat`))[3]);
}

/**
 * A `temporal` on PATH that is a script which execs the real binary, as a pyenv shim or any wrapper is: the server
 * process then runs the real binary, not the path the lookup found.
 */
async function wrapperOnPath(realCli: string): Promise<{ env: NodeJS.ProcessEnv; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'rp-shim-'));
  await writeFile(join(dir, 'temporal'), `#!/bin/sh\nexec '${realCli}' "$@"\n`);
  await chmod(join(dir, 'temporal'), 0o755);
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dir}${delimiter}${process.env.PATH ?? ''}` };
  delete env.TEMPORAL_CLI_PATH;
  return { env, remove: () => rm(dir, { recursive: true, force: true }) };
}

const shells = /^(sh|dash|bash|zsh|ksh|busybox|python[\d.]*)$/;

describe.runIf(process.platform === 'linux')('the embedded Temporal server at a given CPU priority', () => {
  it.each(['the CLI as provisioned (TEMPORAL_CLI_PATH, PATH or the cache)', 'a wrapper script on PATH that execs the CLI, as a pyenv shim does'])(
    'runs the server itself, every thread of it, under that niceness, in a session of its own, and stops it: %s',
    async (how) => {
      const port = await freePort();
      const realCli = await provisionOnThisMachine(temporalCli, () => undefined);
      const wrapper = how.startsWith('a wrapper') ? await wrapperOnPath(realCli) : undefined;
      const server = await startEmbeddedTemporal({ namespace: 'default', port, niceness: 7, progress: () => undefined, env: wrapper?.env });
      let pids: number[];
      try {
        if (wrapper) expect(basename(server.cliPath)).toBe('temporal');
        pids = await pidsRunning(['server', 'start-dev', '--port', String(port)]);
        // The launcher exec'd all the way down: one process, and it is the server, not a shell waiting on it.
        expect(pids).toHaveLength(1);
        expect(basename(await readlink(`/proc/${pids[0]}/exe`))).not.toMatch(shells);
        const niceness = await threadNiceness(pids[0]!);
        expect(niceness.length).toBeGreaterThan(1);
        expect(new Set(niceness)).toEqual(new Set([7]));
        // A session of its own, whose scheduling group has the same niceness, so that it holds against other
        // sessions where the kernel groups by session (docs/adr/0048).
        expect(await sessionOf(pids[0]!)).toBe(pids[0]);
        expect(await sessionOf(pids[0]!)).not.toBe(await sessionOf(process.pid));
        const group = await readFile(`/proc/${pids[0]}/autogroup`, 'utf8').catch(() => undefined);
        if (group !== undefined) expect(group).toMatch(/ nice 7\n?$/);
      } finally {
        await server.stop();
        await wrapper?.remove();
      }
      expect(await pidsRunning(['server', 'start-dev', '--port', String(port)])).toEqual([]);
    },
  );

  it('runs the server in a session of its own at the caller\'s priority when no niceness is asked', async () => {
    const port = await freePort();
    const server = await startEmbeddedTemporal({ namespace: 'default', port, progress: () => undefined });
    try {
      const [pid] = await pidsRunning(['server', 'start-dev', '--port', String(port)]);
      // A Ctrl-C in the terminal signals the caller's process group only: the service stops the server itself.
      expect(await sessionOf(pid!)).toBe(pid);
      expect(new Set(await threadNiceness(pid!))).toEqual(new Set([Number((await procStatFields(`/proc/${process.pid}/stat`))[16])]));
    } finally {
      await server.stop();
    }
  });
});

/** A `temporal` that runs `prelude` before the real CLI's `server` command, given through TEMPORAL_CLI_PATH. */
async function cliWith(prelude: string): Promise<{ env: NodeJS.ProcessEnv; remove: () => Promise<void> }> {
  const realCli = await provisionOnThisMachine(temporalCli, () => undefined);
  const dir = await mkdtemp(join(tmpdir(), 'rp-cli-'));
  const path = join(dir, 'temporal');
  await writeFile(path, `#!/bin/sh\nif [ "$1" = server ]; then ${prelude}; fi\nexec '${realCli}' "$@"\n`);
  await chmod(path, 0o755);
  return { env: { ...process.env, TEMPORAL_CLI_PATH: path }, remove: () => rm(dir, { recursive: true, force: true }) };
}

describe('starting the embedded Temporal server', () => {
  it('waits for a server slower to answer than the SDK\'s five seconds', async () => {
    const slow = await cliWith('sleep 6');
    try {
      const started = Date.now();
      const server = await startEmbeddedTemporal({ namespace: 'default', progress: () => undefined, env: slow.env });
      expect(Date.now() - started).toBeGreaterThan(6000);
      await server.stop();
    } finally {
      await slow.remove();
    }
  });

  it('fails at once with what the server printed when it exits before answering', async () => {
    const broken = await cliWith('echo "listen tcp: address already in use" >&2; exit 3');
    try {
      const started = Date.now();
      const failure = startEmbeddedTemporal({ namespace: 'default', progress: () => undefined, env: broken.env, startTimeoutMs: 30_000 });
      await expect(failure).rejects.toThrow(/did not start: it exited with code 3\nlisten tcp: address already in use/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await broken.remove();
    }
  });

  it('fails at the deadline when the server never answers, and leaves no process behind', async () => {
    const port = await freePort();
    const silent = await cliWith('exec sleep 600');
    try {
      const failure = startEmbeddedTemporal({ namespace: 'default', port, progress: () => undefined, env: silent.env, startTimeoutMs: 1500 });
      await expect(failure).rejects.toThrow(/did not answer within 1.5 s/);
      expect(await pidsRunning(['sleep', '600'])).toEqual([]);
    } finally {
      await silent.remove();
    }
  });
});

