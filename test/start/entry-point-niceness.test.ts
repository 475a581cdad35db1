import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEntryPoint } from '../support/entry-point.ts';
import { procStatFields } from '../support/proc-stat.ts';

const statFields = (pid: number) => procStatFields(`/proc/${pid}/stat`);

// The benches start the workers and the API at a niceness (bench/support/stack.ts). Where the kernel groups processes
// by session, that niceness only holds against other sessions if the process is a session of its own whose group has
// it too (docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md).
describe.runIf(process.platform === 'linux')('an entry point started at a niceness', () => {
  it('runs under it, in a session of its own whose scheduling group has the same niceness', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'entry-point-'));
    const script = join(dir, 'idle.mjs');
    await writeFile(script, `console.log(JSON.stringify({ msg: 'ready' })); setInterval(() => {}, 60_000);\n`);
    const { child } = await startEntryPoint(script, { PATH: process.env.PATH }, 'ready', { niceness: 5 });
    try {
      const pid = child.pid!;
      const fields = await statFields(pid);
      expect(Number(fields[16]), 'niceness').toBe(5);
      expect(Number(fields[3]), 'session').toBe(pid);
      expect(Number(fields[3])).not.toBe(Number((await statFields(process.pid))[3]));
      // Where the kernel was built with session groups (the file exists), the group has the niceness too.
      const group = await readFile(`/proc/${pid}/autogroup`, 'utf8').catch(() => undefined);
      if (group !== undefined) expect(group).toMatch(/ nice 5\n?$/);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
