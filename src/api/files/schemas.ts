import { z } from 'zod';
import { fileStatuses, type RecordingFile } from '../../persistence/entities/recording-file.ts';
import { recordingSignaturePattern } from '../../security/recording-urls.ts';
import { timestamp } from '../shared-schemas.ts';

export const fileIdSchema = z
  .string()
  .regex(/^fil_[A-Za-z0-9_-]{22}$/, 'must be a file id (fil_…)')
  .meta({ description: 'A recording file’s id, `fil_…`.' });

export const fileNameSchema = z
  .string()
  .min(1)
  .max(255)
  .meta({ description: 'The file’s name, kept for display only (never used as a path).' });

export const uploadQuery = z.object({ appId: z.uuid(), fileName: fileNameSchema.optional() });
export const fileIdQuery = z.object({ id: fileIdSchema });

export const playbackParams = z.object({
  fileId: fileIdSchema,
  name: z
    .string()
    .regex(new RegExp(`^${recordingSignaturePattern.source.slice(1, -1)}\\.m4a$`), 'is not a recording URL')
    .meta({ description: 'The URL’s signature and `.m4a`, as the file’s `url` gives it.' }),
});

export const playbackHeaders = z.object({
  Range: z.string().optional().meta({ description: 'One byte range, `bytes=0-99`, `bytes=100-` or `bytes=-500`: answered 206 (416 when past the end).' }),
  'If-None-Match': z.string().optional().meta({ description: 'The `ETag` of a copy held: answered 304 when it is this file.' }),
});

export const fileSchema = z
  .object({
    fileId: fileIdSchema,
    appId: z.uuid(),
    jobId: z.uuid().nullable().meta({ description: 'The job it is a take of, once submitted to one (or uploaded through its artist’s link).' }),
    status: z.enum(fileStatuses).meta({ description: '`processing` until checked; `ready` once its delivery file plays; `rejected` with a `reason`.' }),
    reason: z
      .string()
      .nullable()
      .meta({ description: 'Why it was rejected: `not_audio`, `unreadable`, `type_mismatch`, `too_short`, `too_long`, `too_large`, `silent`, `unreachable` (a URL that could not be fetched), or `cancelled` (its processing run was cancelled).' }),
    detail: z.string().nullable().meta({ description: 'One sentence saying what was found.' }),
    fileName: z.string().nullable(),
    sizeBytes: z.number().int().nullable().meta({ description: 'The original’s size.' }),
    durationMs: z.number().int().nullable().meta({ description: 'What plays, once ready.' }),
    contentType: z.string().nullable().meta({ description: 'The delivery file’s type, `audio/mp4`, once ready.' }),
    detectedType: z.string().nullable().meta({ description: 'What the original’s bytes are: `wav`, `aiff`, `mp3`, `aac`, `m4a`, `flac`, `ogg-vorbis`, `ogg-opus`.' }),
    sampleRate: z.number().int().nullable().meta({ description: 'The original’s.' }),
    channels: z.number().int().nullable().meta({ description: 'The original’s.' }),
    loudnessLufs: z.number().nullable().meta({ description: 'The original’s integrated loudness (EBU R128, of its mono downmix); the delivery file is at −16 LUFS.' }),
    waveform: z.array(z.number()).nullable().meta({ description: '200 peaks of the delivery file, 0 to 1 of full scale, for drawing it.' }),
    url: z.string().meta({ description: 'Where devices play it, without a key: stable and unguessable. Answers once the file is ready.' }),
    createdAt: timestamp,
    processedAt: timestamp.nullable(),
  })
  .meta({ id: 'File' });

export const jobFilesSchema = z.object({ jobId: z.uuid(), items: z.array(fileSchema) }).meta({ id: 'JobFiles' });

export const toFileResponse = (file: RecordingFile): z.infer<typeof fileSchema> => ({
  fileId: file.id,
  appId: file.appId,
  jobId: file.jobId ?? null,
  status: file.status,
  reason: file.reason ?? null,
  detail: file.detail ?? null,
  fileName: file.fileName ?? null,
  sizeBytes: file.sizeBytes ?? null,
  durationMs: file.durationMs ?? null,
  contentType: file.contentType ?? null,
  detectedType: file.detectedType ?? null,
  sampleRate: file.sampleRate ?? null,
  channels: file.channels ?? null,
  loudnessLufs: file.loudnessLufs ?? null,
  waveform: file.waveform ?? null,
  url: file.url,
  createdAt: file.createdAt.toISOString(),
  processedAt: file.processedAt?.toISOString() ?? null,
});
