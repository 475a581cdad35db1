import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LinkOutcome } from '../../src/domain/ingest/link-inbound-event.ts';
import type { EventConfig } from '../../src/persistence/entities/connection.ts';
import { ingestState, ingestWorkflowId, visitorLinked, type IngestEventInput } from '../../workflows/ingest-event.contract.ts';
import { startIngestRun } from '../../src/temporal/starters/ingest-event.ts';
import { isWorkflowTaskFailure, recordHistoryIfAsked, waitForHistoryEvent } from '../support/temporal.ts';
import { connectTestEnvironment, createTestWorker } from '../support/temporal-worker.ts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await connectTestEnvironment();
});
afterAll(() => env?.teardown());

type Finished = { eventId: string; status: string; reason: string };
type Routed = { eventId: string; visitorId: string | null; released: boolean };

/** Stub ingest activities: `link` is what recording the event decides; routing and finishing are recorded. */
function stubIngestActivities(link: () => LinkOutcome | undefined) {
  const calls = { routed: [] as Routed[], finished: [] as Finished[] };
  const activities = {
    async recordInboundEvent() {
      return link();
    },
    async routeInboundEvent(input: Routed) {
      calls.routed.push(input);
      return { matchedExperiences: [], reason: 'routed by the stub' };
    },
    async finishInboundEvent(input: Finished) {
      calls.finished.push(input);
    },
  };
  return { activities, calls };
}

function ingestInput(config: Partial<EventConfig> = {}): IngestEventInput {
  const connectionId = `conn_${randomUUID()}`;
  const messageId = randomUUID();
  return {
    version: 1,
    accepted: {
      eventId: `iev_${randomUUID()}`,
      accountId: randomUUID(),
      connectionId,
      workflowId: ingestWorkflowId(connectionId, messageId),
      event: { version: '1', messageId, occurredAt: new Date().toISOString(), eventType: 'signup', clientUserId: 'u_1' },
    },
    config: { createVisitors: false, holdTtlHours: 1, ...config },
  };
}

/** Starts one ingest run on a worker with the stub activities and hands its handle to `during`. */
async function withIngestRun<T>(link: () => LinkOutcome | undefined, input: IngestEventInput, during: (handle: WorkflowHandle) => Promise<T>) {
  const { activities, calls } = stubIngestActivities(link);
  const { worker, taskQueue } = await createTestWorker(env, activities);
  const result = await worker.runUntil(async () => {
    await expect(startIngestRun({ client: env.client, taskQueue }, input, 'a test')).resolves.toBe(true);
    const handle = env.client.workflow.getHandle(input.accepted.workflowId);
    return during(handle);
  });
  return { result, calls };
}

describe('ingestEvent workflow (stub activities)', () => {
  it('routes a linked event and ends PROCESSED; a second start for the same message is refused', async () => {
    const input = ingestInput();
    const { result, calls } = await withIngestRun(() => ({ outcome: 'linked', visitorId: 'v_1' }), input, async (handle) => {
      const state = await handle.result();
      await expect(startIngestRun({ client: env.client, taskQueue: 'unused' }, input, 'a test')).resolves.toBe(false);
      return state;
    });
    expect(result).toEqual({ status: 'PROCESSED', visitorId: 'v_1', reason: 'routed by the stub' });
    expect(calls.routed).toEqual([{ eventId: input.accepted.eventId, visitorId: 'v_1', released: false }]);
  });

  it('holds an event until its person is linked, then routes it as released', async () => {
    const input = ingestInput();
    const { result, calls } = await withIngestRun(() => ({ outcome: 'held' }), input, async (handle) => {
      await waitForHistoryEvent(handle, (event) => event.timerStartedEventAttributes != null);
      expect(await handle.query(ingestState)).toMatchObject({ status: 'HELD', visitorId: null });
      await handle.signal(visitorLinked, { visitorId: 'v_2' });
      const state = await handle.result();
      await recordHistoryIfAsked(handle, 'ingest-event-held');
      return state;
    });
    expect(result).toMatchObject({ status: 'PROCESSED', visitorId: 'v_2' });
    expect(calls.routed).toEqual([{ eventId: input.accepted.eventId, visitorId: 'v_2', released: true }]);
  });

  it('expires a held event whose person is not linked in time', async () => {
    // 1.8 seconds of hold: the run's own timer ends the wait.
    const input = ingestInput({ holdTtlHours: 0.0005 });
    const { result, calls } = await withIngestRun(() => ({ outcome: 'held' }), input, (handle) => handle.result());
    expect(result).toMatchObject({ status: 'EXPIRED', visitorId: null });
    expect(calls.finished).toEqual([expect.objectContaining({ eventId: input.accepted.eventId, status: 'EXPIRED' })]);
    expect(calls.routed).toEqual([]);
  });

  it('ignores an event the connection does not take, without routing it', async () => {
    const { result, calls } = await withIngestRun(() => ({ outcome: 'ignored', reason: 'not among the eventTypes' }), ingestInput(), (handle) => handle.result());
    expect(result).toEqual({ status: 'IGNORED', visitorId: null, reason: 'not among the eventTypes' });
    expect(calls.routed).toEqual([]);
  });

  it('marks the event FAILED when a step fails for good', async () => {
    const input = ingestInput();
    const { result, calls } = await withIngestRun(
      () => {
        throw ApplicationFailure.nonRetryable('Connection not found', 'not_found');
      },
      input,
      (handle) => handle.result(),
    );
    expect(result).toEqual({ status: 'FAILED', visitorId: null, reason: 'Connection not found' });
    expect(calls.finished).toEqual([{ eventId: input.accepted.eventId, status: 'FAILED', reason: 'Connection not found' }]);
  });

  it('fails the workflow task, not the run, when its own code breaks', async () => {
    // An answer the workflow code cannot read (here: none) stands in for a bug in that code.
    const { calls } = await withIngestRun(() => undefined, ingestInput(), async (handle) => {
      const failure = await waitForHistoryEvent(handle, isWorkflowTaskFailure);
      expect(failure.workflowTaskFailedEventAttributes?.failure?.message).toMatch(/outcome/);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test over');
    });
    expect(calls.finished).toEqual([]);
  });
});
