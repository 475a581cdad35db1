import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecordingFile } from '../../persistence/entities/recording-file.ts';
import { resolveArtistLink } from '../artist-links/resolve-artist-link.ts';
import { loadTakes } from '../jobs/job-records.ts';

export interface ArtistTakes {
  /** The job's takes, oldest first, whoever submitted them. */
  takes: RecordingFile[];
  /** The take the account selected, if any: from then on no take is deleted. */
  selectedFileId: string | null;
}

/** The takes of the link's job, with where each one's processing stands. */
export async function listArtistTakes(deps: { em: EntityManager; graceHours: number }, token: string): Promise<ArtistTakes> {
  const { job } = await resolveArtistLink(deps, token);
  return { takes: await loadTakes(deps.em, [job.id]), selectedFileId: job.selectedFileId ?? null };
}
