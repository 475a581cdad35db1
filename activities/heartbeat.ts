import { Context } from '@temporalio/activity';

/**
 * Runs `work` while heartbeating every `everyMs`, whatever its progress: the server then learns within its
 * heartbeatTimeout that a worker died mid-activity, and retries the activity elsewhere. A slow but live attempt keeps
 * heartbeating, so it is not retried beside itself; its startToCloseTimeout still bounds it.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs = 2_000): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    context.heartbeat();
    return await work();
  } finally {
    clearInterval(timer);
  }
}
