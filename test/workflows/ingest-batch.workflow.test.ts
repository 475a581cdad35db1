import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessedEvent } from '../../src/domain/ingest/process-inbound-events.ts';
import { ingestBatchEventState, ingestBatchWorkflowId, type IngestBatchInput } from '../../workflows/ingest-batch.contract.ts';
import { startIngestBatch } from '../../src/temporal/starters/ingest-batch.ts';
import type { IngestState } from '../../workflows/ingest-event.contract.ts';
import { recordHistoryIfAsked } from '../support/temporal.ts';
import { connectTestEnvironment, createTestWorker } from '../support/temporal-worker.ts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await connectTestEnvironment();
});
afterAll(() => env?.teardown());

/** Stub activities: each chunk's events end as `outcome` says (or the chunk throws); every call is recorded. */
function stubBatchActivities(outcome: (eventId: string) => ProcessedEvent['state'] | 'throw') {
  const calls = { chunks: [] as string[][], failed: [] as Array<{ eventIds: string[]; reason: string }> };
  const activities = {
    async processInboundEvents({ eventIds }: { eventIds: string[] }): Promise<ProcessedEvent[]> {
      calls.chunks.push(eventIds);
      const results = eventIds.map((eventId) => ({ eventId, state: outcome(eventId) }));
      if (results.some((result) => result.state === 'throw')) throw ApplicationFailure.nonRetryable('database gone for good', 'broken');
      return results as ProcessedEvent[];
    },
    async failInboundEvents(input: { eventIds: string[]; reason: string }) {
      calls.failed.push(input);
    },
  };
  return { activities, calls };
}

const batchInput = (groups: string[][], chunkSize: number): IngestBatchInput => ({ version: 1, batchId: `ibt_${randomUUID()}`, groups, chunkSize });

async function runBatch(input: IngestBatchInput, outcome: (eventId: string) => ProcessedEvent['state'] | 'throw', record?: string) {
  const { activities, calls } = stubBatchActivities(outcome);
  const { worker, taskQueue } = await createTestWorker(env, activities);
  return worker.runUntil(async () => {
    await expect(startIngestBatch({ client: env.client, taskQueue }, input)).resolves.toBe(true);
    // A relay restarting the same batch (after a crash) finds it started: never a second run.
    await expect(startIngestBatch({ client: env.client, taskQueue }, input)).resolves.toBe(false);
    const handle = env.client.workflow.getHandle(ingestBatchWorkflowId(input.batchId));
    const result = await handle.result();
    if (record) await recordHistoryIfAsked(handle, record);
    // One query at a time: each query of a closed run replays it on the worker, and a burst of them on a loaded CI
    // machine was seen to stall one for 30 s.
    const states: Array<IngestState | null> = [];
    for (const eventId of input.groups.flat()) states.push(await handle.query(ingestBatchEventState, eventId));
    const scheduled = ((await handle.fetchHistory()).events ?? []).flatMap((event) => event.activityTaskScheduledEventAttributes ?? []);
    return { result, calls, states, scheduled, unknown: await handle.query(ingestBatchEventState, 'iev_elsewhere') };
  });
}

describe('ingestBatch workflow (stub activities)', () => {
  it('processes whole person groups per chunk, chunks side by side, and answers each event’s state', async () => {
    const input = batchInput([['a1', 'a2', 'a3'], ['b1'], ['c1', 'c2'], ['d1']], 4);
    const { result, calls, states, unknown } = await runBatch(
      input,
      (eventId) => (eventId === 'c2' ? { status: 'HELD', visitorId: null, reason: 'waiting' } : { status: 'PROCESSED', visitorId: `v_${eventId[0]}`, reason: 'routed' }),
      'ingest-batch',
    );
    // A person's events stay together and in order; no chunk exceeds 4 unless one person has more.
    expect([...calls.chunks].sort((x, y) => x[0]!.localeCompare(y[0]!))).toEqual([['a1', 'a2', 'a3', 'b1'], ['c1', 'c2', 'd1']]);
    expect(result).toEqual({ events: 7, byStatus: { PROCESSED: 6, HELD: 1 } });
    expect(states[0]).toEqual({ status: 'PROCESSED', visitorId: 'v_a', reason: 'routed' });
    expect(states[5]).toEqual({ status: 'HELD', visitorId: null, reason: 'waiting' });
    expect(unknown).toBeNull();
    expect(calls.failed).toEqual([]);
  });

  it('schedules each chunk with a 10 s heartbeat timeout and 15 minutes to run: a dead worker is found by its heartbeat, a long fan-out is not cut short', async () => {
    const { scheduled } = await runBatch(batchInput([['h1'], ['h2']], 1), () => ({ status: 'PROCESSED', visitorId: null, reason: 'routed' }));
    const chunks = scheduled.filter((attributes) => attributes.activityType?.name === 'processInboundEvents');
    expect(chunks).toHaveLength(2);
    for (const attributes of chunks) {
      expect(Number(attributes.heartbeatTimeout?.seconds)).toBe(10);
      expect(Number(attributes.startToCloseTimeout?.seconds)).toBe(900);
    }
  });

  it('marks what is left of a chunk FAILED when its activity fails for good; other chunks are processed', async () => {
    const input = batchInput([['x1', 'x2'], ['y1']], 2);
    const { result, calls, states } = await runBatch(input, (eventId) => (eventId.startsWith('x') ? 'throw' : { status: 'PROCESSED', visitorId: null, reason: 'routed' }));
    expect(calls.failed).toEqual([{ eventIds: ['x1', 'x2'], reason: 'database gone for good' }]);
    expect(result).toEqual({ events: 3, byStatus: { FAILED: 2, PROCESSED: 1 } });
    expect(states[0]).toEqual({ status: 'FAILED', visitorId: null, reason: 'database gone for good' });
  });
});
