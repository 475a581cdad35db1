import type { EntityManager } from '@mikro-orm/postgresql';
import { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { isUuid } from '../../security/ids.ts';
import type { EventType } from '../events/event-types.ts';

/**
 * What a job event carries, as its subscribers read it. The job's workflow names the take of a
 * `job.recording_submitted` by the id it gave that SUBMITTED step (a UUID it makes itself); the event names the file
 * instead (`fil_…`), which `GET /file/get` and `POST /richPush/select` take. Every other event passes as it is.
 */
export async function jobEventResult(em: EntityManager, type: EventType, result: Record<string, unknown>): Promise<Record<string, unknown>> {
  const submissionId = result.fileId;
  if (type !== 'job.recording_submitted' || typeof submissionId !== 'string' || !isUuid(submissionId)) return result;
  const file = await em.findOne(RecordingFile, { submissionId });
  return file ? { ...result, fileId: file.id } : result;
}
