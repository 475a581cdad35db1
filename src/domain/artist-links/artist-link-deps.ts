import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../security/secret-box.ts';

/** An artist link's token: `art_` and 32 random bytes, base64url (256 bits). */
export const artistTokenPrefix = 'art_';

/** What artist links need besides the database: their tokens' seal, the address they start with, and their grace. */
export interface ArtistLinkSettings {
  /** Seals each token for its row, so that the account can be shown the link again. */
  secrets: SecretBox;
  /** PUBLIC_URL, without a trailing slash: a link is `{publicUrl}/artist/{token}`. */
  publicUrl: string;
  /** ARTIST_LINK_GRACE_HOURS: how long a link outlives its job's artistDueDate. */
  graceHours: number;
}

export interface ArtistLinkDeps extends ArtistLinkSettings {
  em: EntityManager;
}

/** A link as the account sees it, and as `job.assigned` carries it. */
export interface ArtistLinkView {
  url: string;
  /** ISO-8601 UTC. */
  expiresAt: string;
}
