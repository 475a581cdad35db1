import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveArtistLink } from './resolve-artist-link.ts';

/** The job as its artist sees it: what to record and by when, and nothing else of the account. */
export interface ArtistJobView {
  title: string;
  description: string | null;
  script: string | null;
  richPushLevel: string;
  dueDate: number | null;
  artistDueDate: number | null;
  /** When this link stops opening (ISO-8601 UTC). */
  linkExpiresAt: string;
}

export async function getArtistJob(deps: { em: EntityManager; graceHours: number }, token: string): Promise<ArtistJobView> {
  const { job, expiresAt } = await resolveArtistLink(deps, token);
  return {
    title: job.title,
    description: job.description ?? null,
    script: job.script ?? null,
    richPushLevel: job.richPushLevel,
    dueDate: job.dueDate ?? null,
    artistDueDate: job.artistDueDate ?? null,
    linkExpiresAt: expiresAt.toISOString(),
  };
}
