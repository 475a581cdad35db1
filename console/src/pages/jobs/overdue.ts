import type { Job } from './job-queries.ts';

const ended: ReadonlySet<Job['status']> = new Set(['ACCEPTED', 'CANCELLED']);
/** The states in which the take is still the artist's to deliver. */
const awaitingArtist: ReadonlySet<Job['status']> = new Set(['CREATED', 'ASSIGNED']);

/**
 * Which of the job's due dates has passed with its work undone, if any: the artist's while no take is in, the job's
 * own until it is accepted. An ended job is never overdue.
 */
export function overdueOf(job: Pick<Job, 'status' | 'dueDate' | 'artistDueDate'>, now: number): 'job' | 'artist' | undefined {
  if (ended.has(job.status)) return undefined;
  if (job.dueDate !== null && job.dueDate < now) return 'job';
  if (awaitingArtist.has(job.status) && job.artistDueDate !== null && job.artistDueDate < now) return 'artist';
  return undefined;
}
