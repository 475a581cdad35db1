import {
  ingestBatchSearchAttributes,
  ingestBatchWorkflowId,
  ingestBatchWorkflowType,
  type IngestBatchInput,
  type IngestBatchWorkflow,
} from '../../../workflows/ingest-batch.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';
import { startOnce } from './start-once.ts';

/** Starts the batch's run; false when it already exists (a relay that crashed after the start, or another relay). */
export function startIngestBatch(temporal: TemporalAccess, input: IngestBatchInput): Promise<boolean> {
  const events = input.groups.reduce((sum, group) => sum + group.length, 0);
  return startOnce(() =>
    temporal.client.workflow.start<IngestBatchWorkflow>(ingestBatchWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: ingestBatchWorkflowId(input.batchId),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: ingestBatchSearchAttributes(input),
      staticSummary: `${events} inbound event(s) of ${input.groups.length} person(s)`,
      requestEagerStart: temporal.eagerStart === true,
    }),
  );
}
