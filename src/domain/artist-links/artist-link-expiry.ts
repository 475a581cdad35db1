import { isFinal, type JobStatus } from '../../sandbox-safe/job-transitions.ts';

const hourMs = 3_600_000;

/** A link whose job has no artistDueDate lives this long from when it was made. */
export const undatedLinkLifetimeMs = 14 * 24 * hourMs;

/**
 * When a link stops opening: the job's artistDueDate plus the grace, else 14 days after the link was made. Worked
 * out from the job as it is now, so a due date that moves moves the link's end with it (and can reopen a link that
 * had expired by time alone).
 */
export function artistLinkExpiresAt(job: { artistDueDate?: number | null | undefined }, link: { createdAt: Date }, graceHours: number): Date {
  return new Date(job.artistDueDate != null ? job.artistDueDate + graceHours * hourMs : link.createdAt.getTime() + undatedLinkLifetimeMs);
}

/**
 * Why a link no longer opens for good, or null while it may: replaced by a newer link (the artist changed), or its
 * job ended (accepted or cancelled). Expiry by time is apart (`artistLinkExpiresAt`): the account can move it.
 */
export function linkEnded(link: { revokedAt?: Date | null | undefined }, job: { status: JobStatus }): string | null {
  if (link.revokedAt) return 'it was replaced by a newer link';
  if (isFinal(job.status)) return 'its job has ended';
  return null;
}
