import { Context } from '@temporalio/activity';

/**
 * Runs `work` while heartbeating every `everyMs`, whatever its progress: the server then learns within its
 * heartbeatTimeout that a worker died mid-activity, and retries the activity elsewhere. A slow but live attempt keeps
 * heartbeating, so it is not retried beside itself; its startToCloseTimeout still bounds it. `details`, when given, is
 * read at each beat and sent with it (the Temporal UI shows the last one on the pending activity).
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs = 2_000, details?: () => unknown): Promise<T> {
  const context = Context.current();
  const beat = () => (details ? context.heartbeat(details()) : context.heartbeat());
  const timer = setInterval(beat, everyMs);
  try {
    beat();
    return await work();
  } finally {
    clearInterval(timer);
  }
}
