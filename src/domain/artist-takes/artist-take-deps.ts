import type { SubmitDeps } from '../jobs/job-actions.ts';

/** What the artist's take routes need: a take is submitted as the account's are, behind a link that may expire. */
export type ArtistTakeDeps = SubmitDeps & {
  /** ARTIST_LINK_GRACE_HOURS: how long a link outlives its job's artistDueDate. */
  graceHours: number;
};
