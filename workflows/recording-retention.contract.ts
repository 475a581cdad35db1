import { EntityId, EntityType } from '../src/sandbox-safe/search-attributes.ts';

/**
 * The contract of the retention sweep of recording files (docs/recordings.md, "Retention"), which a Temporal Schedule
 * starts every hour: it deletes, objects and rows, the takes nobody selected RECORDING_RETENTION_DAYS after their job
 * ended, the uploads nothing used as long after they came, and rejected files after a day. The worker creates the
 * schedule at start (src/temporal/starters/recording-retention.ts).
 */
export const recordingRetentionWorkflowType = 'recordingRetention';

export interface RecordingRetentionInput {
  version: 1;
  /** Only this account's files (a sweep an operator starts for one account, and the tests); the schedule sweeps all. */
  accountId?: string | undefined;
}

export interface RecordingRetentionResult {
  deleted: number;
  /** Files were still due when the run stopped (its batches are capped); the next run goes on. */
  more: boolean;
}

export type RecordingRetentionWorkflow = (input: RecordingRetentionInput) => Promise<RecordingRetentionResult>;

export const recordingRetentionScheduleId = 'recording-retention';

/** The schedule's runs are `recording-retention-<time>`; Temporal appends the time to the schedule's workflow id. */
export const recordingRetentionWorkflowId = 'recording-retention';

export const recordingRetentionSearchAttributes = [
  { key: EntityType, value: 'recording-retention' },
  { key: EntityId, value: recordingRetentionScheduleId },
];
