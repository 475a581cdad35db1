import {
  fileSearchAttributes,
  fileWorkflowId,
  processFileWorkflowType,
  type ProcessFileInput,
  type ProcessFileWorkflow,
} from '../../../workflows/process-file.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';
import { startOnce } from './start-once.ts';

export interface FileToProcess {
  fileId: string;
  accountId: string;
  appId: string;
  fetch: boolean;
  /** For the run's summary in the Temporal UI: the name the file came with, else its URL. */
  label: string;
}

/**
 * Starts a file's processing run on the bulk queue. Idempotent: a second start (the recovery after a start whose answer
 * was lost, or two of them) finds the run and counts as done. A run that failed may be started again.
 */
export function startFileProcessing(temporal: TemporalAccess, file: FileToProcess): Promise<boolean> {
  const input: ProcessFileInput = { version: 1, fileId: file.fileId, accountId: file.accountId, appId: file.appId, fetch: file.fetch };
  return startOnce(() =>
    temporal.client.workflow.start<ProcessFileWorkflow>(processFileWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: fileWorkflowId(file.fileId),
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      args: [input],
      typedSearchAttributes: fileSearchAttributes(file),
      staticSummary: `Process recording “${file.label.slice(0, 120)}”`,
      staticDetails: `File ${file.fileId} in app ${file.appId}${file.fetch ? ' · fetched from its URL first' : ''}`,
      requestEagerStart: temporal.eagerStart === true,
    }),
  );
}
