import { ApplicationFailure, Context } from '@temporalio/activity';
import type { DeliverOutcome } from '../src/domain/sends/deliver-pushes.ts';
import type { ActivityDeps } from './deps.ts';

// What every sending activity (A/B arms, campaign shards, test sends) needs around the send engine.

/** The engine's deps for the running activity: its heartbeat carries the last wave done, its cancellation stops the waves. */
export function engineDeps({ orm, push }: Pick<ActivityDeps, 'orm' | 'push'>) {
  const context = Context.current();
  return {
    deps: { em: orm.em.fork(), push, progress: (last: string) => context.heartbeat(last), signal: context.cancellationSignal },
    resumeAfter: context.info.heartbeatDetails as string | undefined,
  };
}

/** A send the provider asked to retry: the activity fails retryably, after the provider's Retry-After when it gave one. */
export function throwRetry(outcome: Extract<DeliverOutcome, { kind: 'retry' }>): never {
  throw ApplicationFailure.create({ type: 'PushRetry', message: outcome.reason, ...(outcome.afterMs ? { nextRetryDelay: outcome.afterMs } : {}) });
}
