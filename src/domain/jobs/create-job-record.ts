import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { Job } from '../../persistence/entities/job.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import { DomainError, notFound } from '../errors.ts';
import { loadJobView } from './job-records.ts';
import type { JobFields, JobView } from './job-view.ts';

/** The refusal of a job for a message that is not DRAFT (a message has one live job at a time). */
export const messageNotDraft = (status: string) => new DomainError('invalid_state', `The message is ${status}; a recording job needs a DRAFT message`);

export interface CreateJobRecordInput extends JobFields {
  jobId: string;
  accountId: string;
  appId: string;
  notificationId: string;
  transitionId: string;
}

/**
 * Writes a new job in CREATED and moves its message to RECORDING, in one transaction. Run by the job workflow;
 * running it again with the same transition id returns the job it already wrote.
 */
export async function createJobRecord(em: EntityManager, input: CreateJobRecordInput): Promise<JobView> {
  return em.transactional(async (tx) => {
    const existing = await tx.findOne(Job, { id: input.jobId });
    if (existing) {
      if (existing.lastTransitionId === input.transitionId) return loadJobView(tx, existing);
      throw new DomainError('conflict', `Job ${input.jobId} already exists`);
    }
    const notification = await tx.findOne(
      Notification,
      { id: input.notificationId, accountId: input.accountId, appId: input.appId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!notification) throw notFound('Notification');
    if (notification.status !== 'DRAFT') throw messageNotDraft(notification.status);
    notification.status = 'RECORDING';
    const job = tx.create(Job, {
      id: input.jobId,
      accountId: input.accountId,
      appId: input.appId,
      notificationId: input.notificationId,
      title: input.title,
      description: input.description ?? null,
      richPushLevel: input.richPushLevel,
      dueDate: input.dueDate ?? null,
      artistDueDate: input.artistDueDate ?? null,
      artist: input.artist ?? null,
      favourite: input.favourite,
      script: input.script ?? null,
      jobType: input.jobType,
      isStock: input.isStock,
      filterId: input.filterId ?? null,
      status: 'CREATED',
      lastTransitionId: input.transitionId,
    });
    await tx.flush();
    return loadJobView(tx, job);
  });
}
