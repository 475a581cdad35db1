import { Context } from '@temporalio/activity';
import { deliverImmediately } from '../src/outbox/deliver-immediately.ts';
import type { ActivityDeps } from './deps.ts';

/**
 * Runs a step whose publishes hand their deliveries back (`takeDeliveries`) instead of waking the relay, then sends
 * them from this activity, immediately (ADR 0027): after the step commits, and also after it failed, for what committed
 * before. The deliveries name the run this activity is part of while they are sent.
 */
export async function withImmediateDelivery<T>(deps: ActivityDeps, step: (takeDeliveries: (ids: string[]) => void) => Promise<T>): Promise<T> {
  const { cancellationSignal: signal, info } = Context.current();
  const written: string[] = [];
  // An activity always runs for a run; the fallback only satisfies the type.
  const sentBy = info.workflowExecution?.workflowId ?? info.activityType;
  try {
    return await step((ids) => written.push(...ids));
  } finally {
    const em = deps.orm.em.fork();
    const { http, secrets, temporal, delivery, metrics, logger } = deps;
    await deliverImmediately({ em, http, secrets, publish: { em, temporal, delivery }, metrics, logger, signal }, written, sentBy);
  }
}
