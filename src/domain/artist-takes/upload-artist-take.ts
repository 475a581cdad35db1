import type { Readable } from 'node:stream';
import type { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { transition } from '../../sandbox-safe/job-transitions.ts';
import { resolveArtistLink } from '../artist-links/resolve-artist-link.ts';
import { DomainError } from '../errors.ts';
import { acceptUpload } from '../files/accept-upload.ts';
import { submitJobRecording } from '../jobs/job-actions.ts';
import { requireRoomForTake } from '../jobs/take-limit.ts';
import type { ArtistTakeDeps } from './artist-take-deps.ts';

export interface ArtistUpload {
  /** Kept for display only, never as a path. */
  fileName: string | null;
  /** The request's Content-Type: any audio type, `application/octet-stream` or none. */
  declaredType: string | undefined;
  /** The request's Content-Length, when it sent one. */
  declaredLength: number | undefined;
  body: Readable;
}

/**
 * An artist's take through their link: the upload is taken as `POST /file/upload` takes one (the same checks, the
 * same streaming under the cap), as a file of the link's job, and then submitted to the job as the account's
 * `POST /job/recording { fileId }` submits one: the job's SUBMITTED step, `job.recording_submitted`. Answers the file:
 * `processing`, or `rejected` when its first bytes are not audio (such a file is no take: it is not submitted).
 *
 * Refused before the body is read: 404 and 410 (the link), 409 `invalid_state` (a take was selected), 409
 * `too_many_takes` (the job has its 20), and what `acceptUpload` refuses unread (415, 503, a Content-Length over the cap).
 */
export async function uploadArtistTake(deps: ArtistTakeDeps, token: string, upload: ArtistUpload): Promise<RecordingFile> {
  const { job, accountId, appId } = await resolveArtistLink(deps, token);
  if (!transition('submitRecording', job.status).ok) {
    throw new DomainError('invalid_state', `The job is ${job.status}: a take has been selected, so it takes no more takes`);
  }
  await requireRoomForTake(deps.em, job.id);
  const file = await acceptUpload(deps, { ...upload, accountId, appId, jobId: job.id, source: 'artist' });
  if (file.status === 'rejected') return file;
  await submitJobRecording(deps, accountId, job.id, { fileId: file.id });
  return file;
}
