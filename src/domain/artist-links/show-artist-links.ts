import { ArtistLink } from '../../persistence/entities/artist-link.ts';
import { Job } from '../../persistence/entities/job.ts';
import type { JobStatus } from '../../sandbox-safe/job-transitions.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';
import type { ArtistLinkDeps, ArtistLinkView } from './artist-link-deps.ts';
import { artistLinkExpiresAt, linkEnded } from './artist-link-expiry.ts';

interface LinkedJob {
  id: string;
  status: JobStatus;
  artistDueDate: number | null;
}

/**
 * The jobs as the account sees them: each with `artistLink`, its live link (`{ url, expiresAt }`), or null when it has
 * none (not yet executed) or it ended (the job was accepted or cancelled). A link past its expiry is still shown, so
 * the account sees when it ended and can move the artistDueDate. One query for all of them.
 */
export async function withArtistLinks<J extends LinkedJob>(deps: ArtistLinkDeps, jobs: J[]): Promise<Array<J & { artistLink: ArtistLinkView | null }>> {
  const links = jobs.length ? await deps.em.find(ArtistLink, { jobId: { $in: jobs.map((job) => job.id) }, revokedAt: null }) : [];
  const liveOf = new Map(links.map((link) => [link.jobId, link]));
  return jobs.map((job) => {
    const link = liveOf.get(job.id);
    return { ...job, artistLink: link && !linkEnded(link, job) ? viewOf(deps, job, link) : null };
  });
}

export async function withArtistLink<J extends LinkedJob>(deps: ArtistLinkDeps, job: J): Promise<J & { artistLink: ArtistLinkView | null }> {
  const [shown] = await withArtistLinks(deps, [job]);
  return shown!;
}

/**
 * The link a `job.assigned` event carries, read when the event is published: the job's live link if it was made for
 * the artist the event names, else null (the artist changed again before the event went out: that link is dead, and
 * the newer artist's own event carries theirs).
 */
export async function assignedArtistLink(deps: ArtistLinkDeps, jobId: string, artist: unknown): Promise<ArtistLinkView | null> {
  const job = await deps.em.findOne(Job, { id: jobId });
  const link = job && (await deps.em.findOne(ArtistLink, { jobId, revokedAt: null }));
  if (!job || !link || link.artist !== artist || linkEnded(link, job)) return null;
  return viewOf(deps, job, link);
}

/**
 * The link with its token opened, or null when the token does not open (sealed under another SECRETS_KEY): the job's
 * answers keep working, and the artist's link keeps opening, since a request finds it by its hash.
 */
function viewOf(deps: ArtistLinkDeps, job: { artistDueDate: number | null | undefined }, link: ArtistLink): ArtistLinkView | null {
  let token: string;
  try {
    token = deps.secrets.open(link.tokenSealed, secretContexts.artistLinkToken(link.id));
  } catch {
    return null;
  }
  return { url: `${deps.publicUrl}/artist/${token}`, expiresAt: artistLinkExpiresAt(job, link, deps.graceHours).toISOString() };
}
