import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { Job } from '../../persistence/entities/job.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { withUpdateErrors } from '../../temporal/update-errors.ts';
import { createRecordingJobRun, recordingJobHandle, type CreateJobArgs } from '../../../workflows/recording-job.contract.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';
import { DomainError } from '../errors.ts';
import { getNotification } from '../notifications/get-notification.ts';
import { transition, type JobAction } from './job-transitions.ts';
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
 */
export async function createRecordingJob(deps: JobDeps, accountId: string, args: CreateJobArgs & { appId: string }): Promise<JobView> {
  await findOwnedApp(deps.em, accountId, args.appId);
  await getNotification(deps.em, accountId, args.notificationId);
  const { appId, ...create } = args;
  // With an Idempotency-Key the job id is the key's operation id, so a retry finds the run its first try started.
  const jobId = deps.updateId ?? randomUUID();
  return withUpdateErrors(
    () => createRecordingJobRun(deps.temporal, WithStartWorkflowOperation, { jobId, accountId, appId, create, updateId: deps.updateId }),
    async () => {
      throw new DomainError('conflict', 'The job could not be created; retry');
    },
  );
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
