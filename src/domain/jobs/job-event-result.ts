import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { isUuid } from '../../security/ids.ts';
import type { ArtistLinkDeps } from '../artist-links/artist-link-deps.ts';
import { assignedArtistLink } from '../artist-links/show-artist-links.ts';
import type { EventType } from '../events/event-types.ts';

/**
 * What a job event carries, as its subscribers read it, completed from Postgres as it is published, so that neither
 * part ever enters the run's history. The job's workflow names the take of a `job.recording_submitted` by the id it
 * gave that SUBMITTED step (a UUID it makes itself); the event names the file instead (`fil_…`), which
 * `GET /file/get` and `POST /richPush/select` take. A `job.assigned` carries the artist's link. Every other event
 * passes as it is.
 */
export async function jobEventResult(deps: ArtistLinkDeps, type: EventType, result: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (type === 'job.assigned') return { ...result, artistLink: await assignedArtistLink(deps, String(result.jobId), result.artist) };
  const submissionId = result.fileId;
  if (type !== 'job.recording_submitted' || typeof submissionId !== 'string' || !isUuid(submissionId)) return result;
  const file = await deps.em.findOne(RecordingFile, { submissionId });
  return file ? { ...result, fileId: file.id } : result;
}
