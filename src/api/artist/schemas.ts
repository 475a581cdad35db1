import { z } from 'zod';
import { fileStatuses, type RecordingFile } from '../../persistence/entities/recording-file.ts';
import { fileIdSchema, fileNameSchema } from '../files/schemas.ts';
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

export const artistTakeParams = artistTokenParams.extend({ fileId: fileIdSchema });
export const artistUploadQuery = z.object({ fileName: fileNameSchema.optional() });

export const artistTakeSchema = z
  .strictObject({
    fileId: fileIdSchema,
    fileName: z.string().nullable(),
    status: z.enum(fileStatuses).meta({ description: '`processing` until checked; `ready` once it plays at `url`; `rejected` with a `reason`.' }),
    reason: z.string().nullable().meta({ description: 'Why it was rejected: `not_audio`, `unreadable`, `type_mismatch`, `too_short`, `too_long`, `silent`, `cancelled`.' }),
    detail: z.string().nullable().meta({ description: 'One sentence saying what was found.' }),
    sizeBytes: z.number().int().nullable().meta({ description: 'What was uploaded.' }),
    durationMs: z.number().int().nullable().meta({ description: 'What plays, once ready.' }),
    waveform: z.array(z.number()).nullable().meta({ description: '200 peaks of what plays, 0 to 1 of full scale, for drawing it.' }),
    url: z.string().meta({ description: 'Where to listen to it, without a key: the file devices would play. Answers once the take is ready.' }),
    selected: z.boolean().meta({ description: 'Whether the account selected this take.' }),
    createdAt: timestamp,
    processedAt: timestamp.nullable(),
  })
  .meta({ id: 'ArtistTake', description: 'A take as its artist sees it: nothing of the account besides.' });

export const artistTakesSchema = z
  .strictObject({
    items: z.array(artistTakeSchema).meta({ description: 'The job’s takes, oldest first.' }),
    maxTakes: z.number().int().meta({ description: 'The most takes a job may have.' }),
  })
  .meta({ id: 'ArtistTakes' });

export const toArtistTakeResponse = (file: RecordingFile, selectedFileId: string | null): z.infer<typeof artistTakeSchema> => ({
  fileId: file.id,
  fileName: file.fileName ?? null,
  status: file.status,
  reason: file.reason ?? null,
  detail: file.detail ?? null,
  sizeBytes: file.sizeBytes ?? null,
  durationMs: file.durationMs ?? null,
  waveform: file.waveform ?? null,
  url: file.url,
  selected: file.id === selectedFileId,
  createdAt: file.createdAt.toISOString(),
  processedAt: file.processedAt?.toISOString() ?? null,
});
