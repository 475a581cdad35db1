import {
  ingestEventWorkflowType,
  ingestSearchAttributes,
  type IngestEventInput,
  type IngestEventWorkflow,
} from '../../../workflows/ingest-event.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';
import { startOnce } from './start-once.ts';

/**
 * Starts the event's run; false when it already exists (another request, or an earlier try, started it).
 * `source` names where the event came from, for the run's summary.
 */
export function startIngestRun(temporal: TemporalAccess, input: IngestEventInput, source: string): Promise<boolean> {
  const { accepted } = input;
  return startOnce(() =>
    temporal.client.workflow.start<IngestEventWorkflow>(ingestEventWorkflowType, {
      taskQueue: temporal.taskQueue,
      workflowId: accepted.workflowId,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: ingestSearchAttributes(accepted),
      staticSummary: `${accepted.event.eventType} from ${source}`,
    }),
  );
}
