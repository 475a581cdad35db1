import type { ChildProcess } from 'node:child_process';

/** What the dev servers' launchers (Temporal, SeaweedFS) share: watching a server process and stopping it. */

/** The last few kilobytes the process wrote to stderr, for the error when it does not start. */
export function tailOf(server: ChildProcess): () => string {
  let tail = '';
  server.stderr?.setEncoding('utf8');
  server.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4096);
  });
  return () => tail;
}

/** A promise that rejects when the process exits, for racing against a wait for it to answer. */
export function exitOf(server: ChildProcess): Promise<never> {
  const exited = new Promise<never>((_, reject) =>
    server.once('exit', (code, signal) => reject(new Error(`it exited with ${signal ?? `code ${code}`}`))),
  );
  exited.catch(() => undefined);
  return exited;
}

/** SIGTERM, then SIGKILL if the server has not gone within ten seconds. */
export async function stopProcess(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGTERM');
  const killer = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
}
