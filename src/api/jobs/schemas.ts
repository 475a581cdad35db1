import { z } from 'zod';
import { emailSchema } from '../../domain/ingest/normalise/envelope.ts';
import { jobStatuses } from '../../sandbox-safe/job-transitions.ts';
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
    url: z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2048),
    fileName: z.string().min(1).max(255).optional(),
    mimeType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as audio/mpeg').max(100).optional(),
    durationMs: z.number().int().min(0).max(86_400_000).optional(),
    sizeBytes: z.number().int().min(0).max(10 * 1024 ** 3).optional(),
  })
  .meta({ id: 'SubmitRecording' });

export const jobIdQuery = z.object({ id: z.uuid() });
export const fileIdQuery = z.object({ file_id: z.uuid() });
export const listJobsQuery = z.object({ appId: z.uuid().optional(), status: z.enum(jobStatuses).optional(), ...paginationQuery });

export const recordingSchema = z
  .object({
    fileId: z.uuid(),
    jobId: z.uuid(),
    url: z.string(),
    fileName: z.string().nullable(),
    mimeType: z.string().nullable(),
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
    selectedFileId: z.uuid().nullable(),
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
