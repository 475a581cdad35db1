/**
 * How the dev servers (`npm start`'s Postgres and Temporal, the benches' workers) are launched: each as a session of
 * its own, so that a Ctrl-C in the terminal, which signals the whole foreground process group, reaches only the
 * service. The service then stops its parts in order, API and worker first and the servers last; a server that got
 * the Ctrl-C itself would go away under a worker still draining, which then prints connection errors.
 *
 * A server in a session of its own no longer dies with the terminal, so each launch starts a guard that stops the
 * server once the process that launched it is gone (killed, or crashed before it could stop it).
 */

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A shell line that starts, in the background, a watcher of `parentPid` which sends SIGTERM to this shell's process
 * (`$$`, which the server becomes by `exec`) once the parent is gone. `/proc` is read first: a server running as
 * another user (Postgres under root) may not signal the parent, so `kill -0` alone would report it gone. The watcher
 * is a shell of its own (`parent-guard` in its command line), not a copy of the launcher's, and a session of its own
 * where `setsid` exists: a kill of the parent's whole process group (`kill -9 -<pgid>`) would otherwise take the
 * watcher with it and leave the server running for good.
 */
export function parentGuard(parentPid: number): string {
  const pid = Math.trunc(parentPid);
  const watch = `while [ -e /proc/${pid} ] || kill -0 ${pid} 2>/dev/null; do sleep 1; done; kill -TERM "$1" 2>/dev/null`;
  const guard = `/bin/sh -c ${quote(watch)} parent-guard $$`;
  return `{ if command -v setsid >/dev/null 2>&1; then exec setsid ${guard}; else exec ${guard}; fi; } </dev/null >/dev/null 2>&1 &`;
}

/**
 * A shell script that runs `"$0" "$@"` under `nice -n <niceness>` after giving the caller's scheduling group the same
 * niceness. Run it in a session of its own (`setsid`, or Node's `detached`): where the kernel groups processes by
 * session (`kernel.sched_autogroup_enabled`), a niceness orders processes only inside their group, and every group
 * gets an equal share under contention, so a process at -10 in a shared session weighs no more than one PostgreSQL
 * backend, each of which is a session of its own (docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md). As a session of its own whose group is at the same
 * niceness, the process weighs against every other group as its niceness says, whether or not the kernel groups.
 * Writing the group's niceness fails quietly where there is no /proc/self/autogroup, or no privilege to raise it;
 * `nice` then applies as before.
 */
export function weightedLaunchScript(niceness: number): string {
  const value = Math.trunc(niceness);
  return `echo ${value} > /proc/self/autogroup 2>/dev/null; exec nice -n ${value} "$0" "$@"`;
}

/**
 * The text of an executable script that runs `command` with the script's own arguments as a session of its own
 * (`setsid`, where the system has it), at `niceness` when it is not 0, guarded by `parentGuard`, with its standard
 * output discarded when `quiet` (the Temporal CLI prints a banner there, which `npm start` prints better itself).
 * Everything is `exec`'d, so the process that started the script is the server itself, whose pid its starter holds.
 */
export function sessionLauncher(command: string, options: { parentPid: number; niceness?: number | undefined; quiet?: boolean }): string {
  const niceness = Math.trunc(options.niceness ?? 0);
  const run = niceness === 0 ? `${quote(command)} "$@"` : `/bin/sh -c ${quote(weightedLaunchScript(niceness))} ${quote(command)} "$@"`;
  const output = options.quiet ? ' >/dev/null' : '';
  return [
    '#!/bin/sh',
    parentGuard(options.parentPid),
    `if command -v setsid >/dev/null 2>&1; then exec setsid ${run}${output}; fi`,
    `exec ${run}${output}`,
    '',
  ].join('\n');
}
