import { z } from 'zod';
import { timestamp } from '../shared-schemas.ts';

export const artistTokenParams = z.object({
  token: z.string().meta({ description: 'The token of the artist’s link (`art_…`), as `{PUBLIC_URL}/artist/{token}` carries it.' }),
});

export const artistJobSchema = z
  .strictObject({
    title: z.string(),
    description: z.string().nullable(),
    script: z.string().nullable(),
    richPushLevel: z.string(),
    dueDate: z.number().int().nullable().meta({ description: 'Epoch milliseconds.' }),
    artistDueDate: z.number().int().nullable().meta({ description: 'Epoch milliseconds: when the take is due.' }),
    linkExpiresAt: timestamp.meta({ description: 'When this link stops opening: artistDueDate plus the grace, or 14 days after it was made.' }),
  })
  .meta({ id: 'ArtistJob', description: 'The job as its artist sees it: what to record and by when, and nothing else of the account.' });

/** Every route behind an artist's link answers these besides its own. */
export const artistLinkResponses = {
  404: { description: 'No such link (`not_found`)' },
  410: { description: 'The link no longer opens (`link_expired`): past its expiry, replaced by a newer one, or its job accepted or cancelled' },
  429: { description: 'Too many requests from this address or for this link (`rate_limited`)' },
};
