/**
 * A shell script that runs `"$0" "$@"` under `nice -n <niceness>` after giving the caller's scheduling group the same
 * niceness. Run it in a session of its own (`setsid`, or Node's `detached`): where the kernel groups processes by
 * session (`kernel.sched_autogroup_enabled`), a niceness orders processes only inside their group, and every group
 * gets an equal share under contention, so a process at -10 in a shared session weighs no more than one PostgreSQL
 * backend, each of which is a session of its own (decision 104). As a session of its own whose group is at the same
 * niceness, the process weighs against every other group as its niceness says, whether or not the kernel groups.
 * Writing the group's niceness fails quietly where there is no /proc/self/autogroup, or no privilege to raise it;
 * `nice` then applies as before.
 */
export function weightedLaunchScript(niceness: number): string {
  const value = Math.trunc(niceness);
  return `echo ${value} > /proc/self/autogroup 2>/dev/null; exec nice -n ${value} "$0" "$@"`;
}
