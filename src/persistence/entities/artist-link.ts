import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Job } from './job.ts';

/**
 * An artist's link to a job: a bearer token that opens the `/artist/{token}` routes of that job and nothing else.
 * The token is kept twice, neither time as itself: its SHA-256 (`tokenHash`), by which a request finds the link, and
 * sealed for this row with SECRETS_KEY (`tokenSealed`), so that the account can be shown the link again. A job has
 * at most one live link (`revokedAt` null); a new one (the artist changed) revokes the one before.
 */
export const ArtistLink = defineEntity({
  name: 'ArtistLink',
  tableName: 'artist_links',
  properties: {
    id: p.uuid().primary(),
    jobId: () => p.manyToOne(Job).mapToPk().fieldName('job_id'),
    /** sha256 hex of the token. */
    tokenHash: p.string().length(64).unique(),
    tokenSealed: p.text().hidden(),
    /** The artist (e-mail) the link was made for: the job's artist at the time. */
    artist: p.string().length(320).nullable(),
    createdAt: p.datetime(),
    /** Set when a newer link for the job replaced this one. */
    revokedAt: p.datetime().nullable(),
  },
});

export type ArtistLink = InferEntity<typeof ArtistLink>;
