import type { EntityManager } from '@mikro-orm/postgresql';
import { ArtistLink } from '../../persistence/entities/artist-link.ts';
import { Job } from '../../persistence/entities/job.ts';
import { sha256Hex } from '../../security/tokens.ts';
import { DomainError, notFound } from '../errors.ts';
import { artistTokenPrefix } from './artist-link-deps.ts';
import { artistLinkExpiresAt, linkEnded } from './artist-link-expiry.ts';

/** A link that opens: its job, whose account and app every route behind the link acts for, and when it expires. */
export interface OpenArtistLink {
  linkId: string;
  job: Job;
  accountId: string;
  appId: string;
  expiresAt: Date;
}

/** Base64url of 32 bytes: 43 characters. Anything else is no token of ours, refused before any query. */
const tokenPattern = new RegExp(`^${artistTokenPrefix}[A-Za-z0-9_-]{43}$`);

/**
 * The one way into a job by its artist's token, for every `/artist/{token}` route: the job, or 404 `not_found` for a
 * token that is no link, or 410 `link_expired` for a link that no longer opens (past its expiry, replaced by a newer
 * one, or its job accepted or cancelled).
 *
 * The token is found by its SHA-256, as API keys are: the database compares digests, never the token, and the
 * timing of that comparison could tell a caller at most how a digest of their choosing relates to the stored ones,
 * which says nothing about any token (a digest cannot be reversed, and each token has 256 random bits).
 */
export async function resolveArtistLink(deps: { em: EntityManager; graceHours: number }, token: string, now = new Date()): Promise<OpenArtistLink> {
  if (!tokenPattern.test(token)) throw unknownLink();
  const link = await deps.em.findOne(ArtistLink, { tokenHash: sha256Hex(token) });
  if (!link) throw unknownLink();
  const job = await deps.em.findOneOrFail(Job, { id: link.jobId });
  const ended = linkEnded(link, job);
  if (ended) throw linkExpired(`This link no longer opens: ${ended}`);
  const expiresAt = artistLinkExpiresAt(job, link, deps.graceHours);
  if (expiresAt <= now) throw linkExpired(`This link expired at ${expiresAt.toISOString()}`);
  return { linkId: link.id, job, accountId: job.accountId, appId: job.appId, expiresAt };
}

const unknownLink = () => notFound('Artist link');
const linkExpired = (message: string) => new DomainError('link_expired', message);
