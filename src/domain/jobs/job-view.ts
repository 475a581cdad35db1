import type { JobStatus } from '../../sandbox-safe/job-transitions.ts';

/**
 * A job as the API returns it and as its workflow keeps it in memory: plain JSON, no entity. Workflow code imports
 * these types only.
 */
/** A take of the job: a file submitted to it, with where its processing stands. */
export interface RecordingView {
  fileId: string;
  jobId: string;
  status: 'processing' | 'ready' | 'rejected';
  /** Why it was rejected (`not_audio`, `too_long`, …), and one sentence of detail. */
  reason: string | null;
  detail: string | null;
  /** Its playback URL: the delivery file, once ready. */
  url: string;
  fileName: string | null;
  /** The delivery file's type (`audio/mp4`) once ready. */
  contentType: string | null;
  durationMs: number | null;
  sizeBytes: number | null;
  createdAt: string;
}

export interface JobView {
  id: string;
  appId: string;
  notificationId: string;
  title: string;
  description: string | null;
  richPushLevel: string;
  dueDate: number | null;
  artistDueDate: number | null;
  artist: string | null;
  favourite: number;
  script: string | null;
  jobType: string;
  isStock: number;
  filterId: string | null;
  status: JobStatus;
  selectedFileId: string | null;
  recordings: RecordingView[];
  workflowId: string;
  createdAt: string;
  updatedAt: string;
}

/** The fields a client sets on create and update (the spec's job fields). */
export interface JobFields {
  title: string;
  description?: string | null | undefined;
  richPushLevel: string;
  dueDate?: number | null | undefined;
  artistDueDate?: number | null | undefined;
  artist?: string | null | undefined;
  favourite: number;
  script?: string | null | undefined;
  jobType: string;
  isStock: number;
  filterId?: string | null | undefined;
}

export type JobChanges = Partial<JobFields>;

/**
 * A take submitted to the job: a file the service holds (`fil_…`), with its playback URL and name as the
 * `job.recording_submitted` event carries them.
 */
export interface RecordingInput {
  fileId: string;
  url: string;
  fileName?: string | undefined;
}
