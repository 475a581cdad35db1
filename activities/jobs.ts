import { applyJobAction, type JobActionInput } from '../src/domain/jobs/apply-job-action.ts';
import { createJobRecord, type CreateJobRecordInput } from '../src/domain/jobs/create-job-record.ts';
import { jobEventResult } from '../src/domain/jobs/job-event-result.ts';
import type { JobView } from '../src/domain/jobs/job-view.ts';
import type { EventType } from '../src/domain/events/event-types.ts';
import { publishEvent } from '../src/domain/events/publish-event.ts';
import { notifyMessageReady } from '../src/temporal/starters/campaign-send.ts';
import { withDomainFailures } from './domain-failures.ts';
import type { ActivityDeps } from './deps.ts';

/** The recording job workflow's I/O: writing transitions to Postgres and emitting its outbound events. */
export function createJobActivities({ orm, temporal, delivery, secrets, publicUrl, artistLinkGraceHours }: ActivityDeps) {
  return {
    createJobRecord(input: CreateJobRecordInput): Promise<JobView> {
      return withDomainFailures(() => createJobRecord(orm.em.fork(), input));
    },

    async applyJobAction(input: JobActionInput & { jobId: string; transitionId: string }): Promise<JobView> {
      const view = await withDomainFailures(() => applyJobAction(orm.em.fork(), input, secrets));
      // The message is READY now: its send run, if it was scheduled, may go (a retry signals again, to no effect).
      if (input.action === 'accept') await notifyMessageReady(temporal, view.notificationId);
      return view;
    },

    async publishJobEvent(input: { eventId: string; accountId: string; type: EventType; result: Record<string, unknown> }): Promise<void> {
      const em = orm.em.fork();
      const result = await jobEventResult({ em, secrets, publicUrl, graceHours: artistLinkGraceHours }, input.type, input.result);
      await publishEvent({ em, temporal, delivery }, { eventId: input.eventId, accountId: input.accountId, type: input.type, data: { result } });
    },
  };
}
