import { ActivityFailure, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { failureReason } from './failure-reason.ts';
import { ingestBatchEventState, type IngestBatchInput, type IngestBatchResult } from './ingest-batch.contract.ts';
import type { IngestState } from './ingest-event.contract.ts';

/**
 * A chunk heartbeats while it runs, so a chunk whose worker died is retried after 10 s. A chunk whose events fan out
 * to thousands of runs (25 events entering 98 experiences each) starts them at the Temporal server's pace, which under
 * a backlog takes minutes: the heartbeat, not a short cap, tells a dead worker.
 */
const retry = { maximumInterval: '1 minute', maximumAttempts: 20 };
const { processInboundEvents } = proxyActivities<Activities>({ startToCloseTimeout: '15 minutes', heartbeatTimeout: '10 seconds', retry });
const { failInboundEvents } = proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', heartbeatTimeout: '10 seconds', retry });

/** Packs whole person groups, in order, into chunks of at most `size` events (a larger group is a chunk alone). */
function chunksOf(groups: string[][], size: number): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  for (const group of groups) {
    if (current.length > 0 && current.length + group.length > size) {
      chunks.push(current);
      current = [];
    }
    current.push(...group);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * One batch of accepted events, `ingest-batch:<batchId>`: each chunk is one activity that links its events to their
 * visitors and routes them (a held event gets its own `ingestEvent` run, which waits for its person), chunks side by
 * side. An event's outcome is answered by the query `eventState(eventId)`.
 */
export async function ingestBatch(input: IngestBatchInput): Promise<IngestBatchResult> {
  const states = new Map<string, IngestState>();
  for (const group of input.groups) for (const eventId of group) states.set(eventId, { status: 'RECEIVED', visitorId: null });
  setHandler(ingestBatchEventState, (eventId) => states.get(eventId) ?? null);

  await Promise.all(
    chunksOf(input.groups, input.chunkSize).map(async (eventIds) => {
      try {
        for (const outcome of await processInboundEvents({ eventIds })) states.set(outcome.eventId, outcome.state);
      } catch (error) {
        // Out of attempts: whatever is still RECEIVED in the chunk is marked FAILED, so it is not lost from sight.
        if (!(error instanceof ActivityFailure)) throw error;
        const reason = failureReason(error);
        await failInboundEvents({ eventIds, reason });
        for (const eventId of eventIds) if (states.get(eventId)?.status === 'RECEIVED') states.set(eventId, { status: 'FAILED', visitorId: null, reason });
      }
    }),
  );
  const byStatus: IngestBatchResult['byStatus'] = {};
  for (const state of states.values()) byStatus[state.status] = (byStatus[state.status] ?? 0) + 1;
  setCurrentDetails(Object.entries(byStatus).map(([status, n]) => `${status}: ${n}`).join(', '));
  return { events: states.size, byStatus };
}
