import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { weightedLaunchScript } from '../../src/dev/detached-launch.ts';
import { launchEnvironmentOf, nodeFlagsOf } from '../../src/main/node-flags.ts';

export interface StartedEntryPoint {
  child: ChildProcess;
  /** The first log line whose `msg` was the ready message, parsed. */
  line: Record<string, unknown>;
}

/**
 * Runs a service entry point (`src/main/*.ts`) as a child process, as production runs it (its node flags too), and resolves with its first
 * log line whose `msg` is `ready` (so its LOG_LEVEL must let that line through). Until then its output is kept, to
 * say why it did not start; after, stdout is drained and dropped and stderr goes to this process's stderr, or both go
 * to `logPath` (from the start) when given, to read after a process died.
 * `niceness` starts it under `nice`, so that every thread it makes (libuv, V8, the Temporal SDK's core) runs at that
 * CPU priority, in a session of its own whose scheduling group has the same niceness. Used by the tests (test/support/instances.ts) and the benches (bench/support/stack.ts).
 */
export async function startEntryPoint(
  script: string,
  env: NodeJS.ProcessEnv,
  ready: string,
  options: { niceness?: number | undefined; timeoutMs?: number; logPath?: string } = {},
): Promise<StartedEntryPoint> {
  const niceness = options.niceness ?? 0;
  // Launched as production launches it; a caller's own values win, so that a bench can try others.
  const launchEnv = { ...launchEnvironmentOf(script), ...env };
  // With a niceness, a session of its own (`detached`) whose scheduling group has it too, so that it holds against
  // other sessions as well (weightedLaunchScript, docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md).
  const child =
    niceness === 0
      ? spawn(process.execPath, [...nodeFlagsOf(script), script], { env: launchEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('/bin/sh', ['-c', weightedLaunchScript(niceness), process.execPath, ...nodeFlagsOf(script), script], { env: launchEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const keep = (chunk: Buffer) => (output += chunk.toString());
  let lookForReady = () => {};
  let onExit = (_code: number | null) => {};
  let timer: NodeJS.Timeout | undefined;
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  try {
    const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
      timer = setTimeout(() => {
        // Not left running: the caller never gets a handle to stop it.
        child.kill('SIGKILL');
        reject(new Error(`${script} did not start:\n${output}`));
      }, options.timeoutMs ?? 60_000);
      lookForReady = () => {
        // Whole lines only: a chunk can end inside one.
        const found = output.split('\n').slice(0, -1).find((text) => text.includes(`"msg":${JSON.stringify(ready)}`));
        if (found) resolve(JSON.parse(found) as Record<string, unknown>);
      };
      onExit = (code) => reject(new Error(`${script} exited with ${code}:\n${output}`));
      child.stdout.on('data', lookForReady);
      child.once('exit', onExit);
    });
    return { child, line };
  } finally {
    clearTimeout(timer);
    // Keep both pipes flowing (a full pipe would block the child), without keeping or reading what they say.
    for (const listener of [keep, lookForReady]) child.stdout.off('data', listener);
    child.stderr.off('data', keep);
    child.off('exit', onExit);
    if (options.logPath) {
      const log = createWriteStream(options.logPath, { flags: 'a' });
      log.write(output);
      child.stdout.pipe(log, { end: false });
      child.stderr.pipe(log, { end: false });
    } else {
      child.stdout.resume();
      child.stderr.pipe(process.stderr, { end: false });
    }
  }
}
