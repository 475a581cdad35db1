import { ApplicationFailure, Context } from '@temporalio/activity';
import { cancelLiveRuns } from '../src/domain/experiences/cancel-live-runs.ts';
import type { Condition } from '../src/domain/experiences/definition-schema.ts';
import { loadRunContext } from '../src/domain/experiences/run-context.ts';
import type { RunRef } from '../src/domain/experiences/run-ref.ts';
import {
  endExperienceRun,
  enterExperienceRun,
  evaluateRunCondition,
  fireExperienceWebhook,
  publishExperienceGoal,
  saveExperienceRunProgress,
  type EndRunInput,
  type GoalReached,
} from '../src/domain/experiences/run-steps.ts';
import { renderTemplate } from '../src/sandbox-safe/experiences/render-template.ts';
import { callProvider } from '../src/domain/providers/call-provider.ts';
import type { PathStep } from '../src/persistence/entities/experience-run.ts';
import { derivedId } from '../src/security/ids.ts';
import type { ActivityDeps } from './deps.ts';
import { engineDeps, throwRetry } from './send-engine.ts';
import { sendExperiencePush, type ExperiencePushOutcome } from '../src/domain/experiences/send-experience-push.ts';
import { withDomainFailures } from './domain-failures.ts';
import { withImmediateDelivery } from './immediate-delivery.ts';

/** An experience run's I/O: its row, its conditions, and the actions its nodes fire. */
export function createExperienceActivities(deps: ActivityDeps) {
  const { orm, temporal, delivery, http, secrets, push } = deps;
  const publishDeps = () => ({ em: orm.em.fork(), temporal, delivery });
  return {
    enterExperienceRun(input: { runId: string }) {
      return enterExperienceRun(orm.em.fork(), input.runId);
    },
    saveExperienceRunProgress(input: { runId: string; currentNodeId: string | null; path: PathStep[] }) {
      return saveExperienceRunProgress(orm.em.fork(), input);
    },
    evaluateExperienceCondition(input: { run: RunRef; condition: Condition; eventId: string }) {
      return evaluateRunCondition(orm.em.fork(), input);
    },
    fireExperienceWebhook(input: { run: RunRef; nodeId: string; endpointId: string | null; result: Record<string, unknown> }) {
      return withDomainFailures(() => fireExperienceWebhook(publishDeps(), input));
    },
    publishExperienceGoal(input: { run: RunRef } & GoalReached) {
      return withDomainFailures(() => publishExperienceGoal(publishDeps(), input));
    },
    /** The end and what it announces, sent immediately from here: the run closes right after (ADR 0061). */
    endExperienceRun(input: EndRunInput) {
      return withImmediateDelivery(deps, (takeDeliveries) => withDomainFailures(() => endExperienceRun({ ...publishDeps(), takeDeliveries }, input)));
    },
    /** A push node: the message to the person's devices; each wave heartbeats, and a retry sends what is still pending. */
    async sendExperiencePush(input: { run: RunRef; nodeId: string; notificationId: string; step: number }): Promise<ExperiencePushOutcome> {
      const { deps, resumeAfter } = engineDeps({ orm, push });
      const outcome = await sendExperiencePush(deps, { ...input, resumeAfter });
      if (outcome.kind === 'retry') throwRetry(outcome);
      return { summary: outcome.summary, heldUntil: outcome.heldUntil };
    },
    cancelLiveExperienceRuns(input: { experienceId: string; afterRunId: string | null }) {
      return cancelLiveRuns({ em: orm.em.fork(), temporal, heartbeat: () => Context.current().heartbeat() }, input);
    },

    /**
     * A provider node: the connection's API in its own format. A refusal (4xx) is an answer, not a failure: the run
     * records it and goes on. Anything worth retrying throws, with the provider's Retry-After as the next delay.
     */
    async callExperienceProvider(input: {
      run: RunRef;
      nodeId: string;
      connectionId: string;
      call: 'track' | 'identify';
      event: string | null;
      properties: Record<string, unknown>;
    }): Promise<{ sent: true; status: number } | { sent: false; reason: string }> {
      const { run } = input;
      const em = orm.em.fork();
      const context = await loadRunContext(em, run);
      const verdict = await withDomainFailures(() =>
        callProvider(
          { em, http, secrets, signal: Context.current().cancellationSignal },
          {
            accountId: run.accountId,
            connectionId: input.connectionId,
            call: input.call,
            event: input.event ?? undefined,
            properties: renderTemplate(input.properties, context) as Record<string, unknown>,
            ...(run.clientUserId ? { userId: run.clientUserId } : { anonymousId: run.visitorId ?? run.runId }),
            // Stable per (run, node): the provider drops a retried call it has already taken.
            messageId: derivedId('msg_', run.runId, input.nodeId),
            timestamp: new Date(Context.current().info.scheduledTimestampMs).toISOString(),
          },
        ),
      );
      switch (verdict.kind) {
        case 'sent':
          return { sent: true, status: verdict.status };
        case 'rejected':
          return { sent: false, reason: verdict.reason };
        case 'retry':
          throw ApplicationFailure.create({
            message: verdict.reason,
            type: 'ProviderCallFailed',
            ...(verdict.afterMs === undefined ? {} : { nextRetryDelay: verdict.afterMs }),
          });
      }
    },
  };
}
