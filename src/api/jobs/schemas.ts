import { z } from 'zod';
import { emailSchema } from '../../domain/ingest/normalise/envelope.ts';
import { fileStatuses } from '../../persistence/entities/recording-file.ts';
import { jobStatuses } from '../../sandbox-safe/job-transitions.ts';
import { fileIdSchema, fileNameSchema } from '../files/schemas.ts';
import { paginationQuery, pageOf, timestamp, trimmedText } from '../shared-schemas.ts';

const epochMs = z.number().int().min(0).max(8_640_000_000_000_000).meta({ description: 'Epoch milliseconds.' });
const level = z.string().regex(/^[A-Z][A-Z_]{0,31}$/, 'must be an upper-case token such as TORSO');

/** The spec's job fields. Which are required and their ranges are decisions (docs/spec-decisions.md, "Job fields"). */
const jobFields = {
  title: trimmedText(200),
  description: z.string().max(4000).nullable().optional(),
  richPushLevel: level.default('TORSO'),
  dueDate: epochMs.nullable().optional(),
  artistDueDate: epochMs.nullable().optional(),
  artist: emailSchema,
  favourite: z.union([z.literal(0), z.literal(1)]).default(0),
  script: z.string().max(20_000).nullable().optional(),
  jobType: z.enum(['RICHPUSH']).default('RICHPUSH'),
  filterId: z
    .string()
    .min(1)
    .max(128)
    .nullable()
    .optional()
    .meta({ description: 'The audience segment: the id of a segment of the job’s app (`POST /filter/create`); any other value is 422 `unknown_segment`.' }),
};

const datesInOrder = (job: { dueDate?: number | null | undefined; artistDueDate?: number | null | undefined }) =>
  job.dueDate == null || job.artistDueDate == null || job.artistDueDate <= job.dueDate;
const datesMessage = { message: 'artistDueDate must not be after dueDate', path: ['artistDueDate'] };

export const createJobBody = z
  .strictObject({
    ...jobFields,
    appId: z.uuid(),
    notificationId: z.uuid(),
    isStock: z.union([z.literal(0), z.literal(1)]).default(0),
  })
  .refine(datesInOrder, datesMessage)
  .meta({ id: 'CreateJob', description: datesMessage.message });

export const updateJobBody = z
  .strictObject({
    id: z.uuid(),
    appId: z.uuid().optional(),
    companyId: z.string().optional().meta({ description: 'Accepted for compatibility; the account is the API key’s.' }),
    title: jobFields.title.optional(),
    description: jobFields.description,
    richPushLevel: level.optional(),
    dueDate: jobFields.dueDate,
    artistDueDate: jobFields.artistDueDate,
    artist: jobFields.artist.optional(),
    favourite: z.union([z.literal(0), z.literal(1)]).optional(),
    script: jobFields.script,
    isStock: z.union([z.literal(0), z.literal(1)]).optional(),
    jobType: z.enum(['RICHPUSH']).optional(),
    filterId: jobFields.filterId,
  })
  .refine(datesInOrder, datesMessage)
  .meta({ id: 'UpdateJob', description: datesMessage.message });

export const recordingBody = z
  .strictObject({
    fileId: fileIdSchema.optional().meta({ description: 'A file of the job’s app, uploaded with POST /file/upload and no job’s take yet.' }),
    url: z
      .url({ protocol: /^https$/, error: 'must be an https URL' })
      .max(2048)
      .optional()
      .meta({ description: 'Kept for compatibility: the service fetches it (public addresses only, at most RECORDING_MAX_BYTES) and checks it like an upload.' }),
    fileName: fileNameSchema.optional().meta({ description: 'With `url`: the name to show; the URL’s last segment by default.' }),
  })
  .refine((take) => (take.fileId === undefined) !== (take.url === undefined), { message: 'send fileId or url, one of them', path: ['fileId'] })
  .refine((take) => take.fileName === undefined || take.url !== undefined, { message: 'goes with url (a file keeps its own name)', path: ['fileName'] })
  .meta({ id: 'SubmitRecording', description: 'One of `fileId` and `url`.' });

export const jobIdQuery = z.object({ id: z.uuid() });
export const selectQuery = z.object({ file_id: fileIdSchema });
export const listJobsQuery = z.object({ appId: z.uuid().optional(), status: z.enum(jobStatuses).optional(), ...paginationQuery });

export const recordingSchema = z
  .object({
    fileId: z.string().meta({ description: 'The take’s file, `fil_…` (GET /file/get).' }),
    jobId: z.uuid(),
    status: z.enum(fileStatuses),
    reason: z.string().nullable(),
    detail: z.string().nullable(),
    url: z.string().meta({ description: 'Its playback URL, which answers once it is ready.' }),
    fileName: z.string().nullable(),
    contentType: z.string().nullable(),
    durationMs: z.number().int().nullable(),
    sizeBytes: z.number().int().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'Recording' });

export const artistLinkSchema = z
  .object({
    url: z.url().meta({ description: '`{PUBLIC_URL}/artist/{token}`: hand it to the artist; it opens this job’s artist routes, and no others.' }),
    expiresAt: timestamp.meta({ description: 'artistDueDate plus ARTIST_LINK_GRACE_HOURS, or 14 days after the link was made when there is no artistDueDate.' }),
  })
  .meta({ id: 'ArtistLink' });

export const jobSchema = z
  .object({
    id: z.uuid(),
    appId: z.uuid(),
    notificationId: z.uuid(),
    title: z.string(),
    description: z.string().nullable(),
    richPushLevel: z.string(),
    dueDate: z.number().int().nullable(),
    artistDueDate: z.number().int().nullable(),
    artist: z.string().nullable(),
    favourite: z.number().int(),
    script: z.string().nullable(),
    jobType: z.string(),
    isStock: z.number().int(),
    filterId: z.string().nullable(),
    status: z.enum(jobStatuses),
    selectedFileId: z.string().nullable(),
    recordings: z.array(recordingSchema),
    artistLink: artistLinkSchema
      .nullable()
      .meta({ description: 'The artist’s link, made by executeJob and made anew when the artist changes; null before executeJob and once the job is accepted or cancelled.' }),
    workflowId: z.string().meta({ description: 'The Temporal workflow that runs this job: job:<id>.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Job' });

export const submittedRecordingSchema = recordingSchema.extend({ job: jobSchema }).meta({ id: 'SubmittedRecording' });
export const jobPage = pageOf(jobSchema).meta({ id: 'JobPage' });
