import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { lockName } from '../../persistence/advisory-lock.ts';
import { Job } from '../../persistence/entities/job.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { withUpdateErrors } from '../../temporal/update-errors.ts';
import type { CreateJobArgs } from '../../../workflows/recording-job.contract.ts';
import { createRecordingJobRun, recordingJobHandle } from '../../temporal/starters/recording-job.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';
import { DomainError, notFound } from '../errors.ts';
import { getNotification } from '../notifications/get-notification.ts';
import { requireAppSegment } from '../segments/require-app-segment.ts';
import { messageNotDraft } from './create-job-record.ts';
import { transition, type JobAction } from '../../sandbox-safe/job-transitions.ts';
import type { JobView } from './job-view.ts';

export interface JobDeps {
  em: EntityManager;
  temporal: TemporalAccess;
  /**
   * The Temporal update id of the step, from the request's Idempotency-Key (its operation id): a retry sends the same
   * id, and Temporal answers it with the first outcome instead of running the step twice. Unset: a fresh id per call.
   */
  updateId?: string | undefined;
}

/**
 * Creates a job by starting its workflow and, in the same call, sending it the `create` update
 * (update-with-start): the workflow writes the job and moves the message to RECORDING before the call returns.
 * Either both happen or neither does.
 *
 * What the workflow would refuse is refused here first, before any run starts: a run whose create fails stays in
 * Temporal (closed, `JobStatus` CREATED) with no job behind it. So creates for one message take turns (an advisory
 * lock on the message, held while its run is started): of two at once, the second finds the message RECORDING and is
 * refused with 409 before it starts anything, and Temporal holds one run (docs/adr/0079-creates-of-a-message-s-job-take-turns.md).
 */
export async function createRecordingJob(deps: JobDeps, accountId: string, args: CreateJobArgs & { appId: string }): Promise<JobView> {
  await findOwnedApp(deps.em, accountId, args.appId);
  const notification = await getNotification(deps.em, accountId, args.notificationId);
  if (notification.appId !== args.appId) throw notFound('Notification');
  await requireAppSegment(deps.em, accountId, args.appId, args.filterId);
  const { appId, ...create } = args;
  // With an Idempotency-Key the job id is the key's operation id, so a retry finds the run its first try started.
  const jobId = deps.updateId ?? randomUUID();
  return deps.em.transactional(async (tx) => {
    await lockName(tx, `job-create:${notification.id}`);
    // Read again under the lock: a create that held it before has committed its job and the message's RECORDING.
    const [current] = await tx.execute<Array<{ status: string }>>('select status from notifications where id = ?', [notification.id]);
    const status = current!.status;
    if (status !== 'DRAFT' && !(await madeByAnEarlierTry({ ...deps, em: tx }, accountId, jobId))) throw messageNotDraft(status);
    return withUpdateErrors(
      () => createRecordingJobRun(deps.temporal, { jobId, accountId, appId, create, updateId: deps.updateId }),
      async () => {
        throw new DomainError('conflict', 'The job could not be created; retry');
      },
    );
  });
}

/**
 * Whether this create is a retry (same Idempotency-Key, so the same job id) of one that made its job: its message is
 * RECORDING because of that job, and Temporal answers the retry with it, so it must not be refused.
 */
async function madeByAnEarlierTry(deps: JobDeps, accountId: string, jobId: string): Promise<boolean> {
  return deps.updateId !== undefined && (await deps.em.count(Job, { id: jobId, accountId })) > 0;
}

/**
 * Sends one lifecycle update to a job's workflow and returns what it answers: the job as stored after the step.
 * A job that has already finished (ACCEPTED or CANCELLED) answers 409 naming its state.
 */
export async function sendJobUpdate<Ret>(
  deps: JobDeps,
  job: Job,
  action: JobAction,
  send: (handle: ReturnType<typeof recordingJobHandle>) => Promise<Ret>,
): Promise<Ret> {
  return withUpdateErrors(
    () => send(recordingJobHandle(deps.temporal, job.id)),
    async () => {
      // The run has ended (ACCEPTED or CANCELLED): answer as its validator would have.
      const current = await deps.em.fork().findOneOrFail(Job, { id: job.id });
      const step = transition(action, current.status);
      throw new DomainError('invalid_state', step.ok ? `The job is ${current.status}; it accepts no more changes` : step.message);
    },
  );
}
