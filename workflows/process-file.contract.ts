import type { ActivityOptions } from '@temporalio/workflow';
import { AccountId, AppId, EntityId, EntityType } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of one recording file's processing run, `file:<fileId>` (docs/recordings.md): the API starts it once
 * the upload is stored and its row committed (the worker's recovery starts it when that start failed). The run
 * fetches the file first when it came as a URL, then checks it and makes its delivery file in one heartbeating
 * activity, and the file's row records the outcome. It runs on the bulk task queue (docs/adr/0080-recording-files-are-processed-by-a-run-of-their-own.md).
 */
export const processFileWorkflowType = 'processFile';

export interface ProcessFileInput {
  version: 1;
  fileId: string;
  accountId: string;
  appId: string;
  /** The file came as a URL: the run fetches it into storage first. */
  fetch: boolean;
}

/** How a file's processing ended, as its row now says. */
export interface FileOutcome {
  status: 'ready' | 'rejected';
  reason: string | null;
  detail: string | null;
  durationMs: number | null;
  loudnessLufs: number | null;
}

export type ProcessFileWorkflow = (input: ProcessFileInput) => Promise<FileOutcome | null>;

/**
 * The processing activity: it heartbeats its progress (`{ stage, fraction }`), which the SDK passes on to the server at
 * most every 8 s (80 % of the timeout), so a worker that dies is seen within 10 s and the file is processed again
 * elsewhere; a retry rewrites the same delivery file. It is retried for faults of the machine (ffmpeg gone, a full
 * disk, storage down); a verdict on the file is a result, not a failure.
 */
export const processingActivityOptions: ActivityOptions = {
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 12 },
};

/** Fetching a URL: each attempt is bounded by the fetch's own timeout; a refusal by the URL's server is a verdict. */
export const fetchActivityOptions: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 4 },
};

export const fileWorkflowId = (fileId: string) => `file:${fileId}`;

export const fileSearchAttributes = (input: { fileId: string; accountId: string; appId: string }) => [
  { key: AccountId, value: input.accountId },
  { key: AppId, value: input.appId },
  { key: EntityType, value: 'file' },
  { key: EntityId, value: input.fileId },
];
