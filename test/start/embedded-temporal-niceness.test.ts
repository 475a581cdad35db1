import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startEmbeddedTemporal } from '../../src/embedded/temporal.ts';
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

describe.runIf(process.platform === 'linux')('the embedded Temporal server at a given CPU priority', () => {
  it('runs the server itself, every thread of it, under that niceness, in a session of its own, and stops it', async () => {
    const port = await freePort();
    const server = await startEmbeddedTemporal({ namespace: 'default', port, niceness: 7, progress: () => undefined });
    let pids: number[];
    try {
      pids = await pidsRunning(['server', 'start-dev', '--port', String(port)]);
      expect(pids).toHaveLength(1);
      // The launcher exec'd the CLI: the server process is the CLI itself, not a shell waiting on it.
      expect(await readlink(`/proc/${pids[0]}/exe`)).toBe(await realpath(server.cliPath));
      const niceness = await threadNiceness(pids[0]!);
      expect(niceness.length).toBeGreaterThan(1);
      expect(new Set(niceness)).toEqual(new Set([7]));
      // A session of its own, whose scheduling group has the same niceness, so that it holds against other sessions
      // where the kernel groups by session (decision 104).
      expect(await sessionOf(pids[0]!)).toBe(pids[0]);
      expect(await sessionOf(pids[0]!)).not.toBe(await sessionOf(process.pid));
      const group = await readFile(`/proc/${pids[0]}/autogroup`, 'utf8').catch(() => undefined);
      if (group !== undefined) expect(group).toMatch(/ nice 7\n?$/);
    } finally {
      await server.stop();
    }
    expect(await pidsRunning(['server', 'start-dev', '--port', String(port)])).toEqual([]);
  });
});
