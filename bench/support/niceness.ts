import { spawnSync } from 'node:child_process';

/**
 * The niceness a process started under `nice -n <requested>` gets on this machine. Lowering a priority (a positive
 * value) is always allowed; raising one (negative) needs root or CAP_SYS_NICE, and without it `nice` only warns and
 * runs the command at the caller's priority, so the bench reports what was granted, not what was asked.
 */
export function grantedNiceness(requested: number): number {
  if (requested >= 0) return requested;
  const probe = spawnSync('nice', ['-n', String(requested), 'true'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stderr === '' ? requested : 0;
}
