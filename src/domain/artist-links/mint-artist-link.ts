import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ArtistLink } from '../../persistence/entities/artist-link.ts';
import type { Job } from '../../persistence/entities/job.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { generateToken, sha256Hex } from '../../security/tokens.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';
import { artistTokenPrefix } from './artist-link-deps.ts';

/**
 * Makes a new link for the job's artist and revokes the job's live one, if any, in the caller's transaction (the job
 * step that assigns the artist, so the two commit together or not at all). The token is kept only as its hash and
 * sealed for the new row; it is never returned or logged here: it is shown to the account by `withArtistLinks`.
 */
export async function mintArtistLink(tx: EntityManager, secrets: SecretBox, job: Job, now = new Date()): Promise<void> {
  await tx.nativeUpdate(ArtistLink, { jobId: job.id, revokedAt: null }, { revokedAt: now });
  const id = randomUUID();
  const token = generateToken(artistTokenPrefix);
  tx.create(ArtistLink, {
    id,
    jobId: job.id,
    tokenHash: sha256Hex(token),
    tokenSealed: secrets.seal(token, secretContexts.artistLinkToken(id)),
    artist: job.artist ?? null,
    createdAt: now,
    revokedAt: null,
  });
}
