import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EntityId, EntityType, EventType } from '../../src/temporal/search-attributes.ts';
import {
  deliveryState,
  deliveryWorkflowId,
  startDelivery,
  type DeliverWebhookInput,
  type DeliveryRetry,
} from '../../workflows/deliver-webhook.contract.ts';
import { startFanOut } from '../../workflows/fan-out-event.contract.ts';
import { connectTestEnvironment, createTestWorker, isWorkflowTaskFailure, recordHistoryIfAsked, waitForHistoryEvent } from '../support/temporal.ts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await connectTestEnvironment();
});
afterAll(() => env?.teardown());

const retry: DeliveryRetry = { initialMs: 50, backoff: 2, maxAttempts: 3, timeoutMs: 1000 };

/** Stub delivery activities: `attempt` decides each attempt's fate; every call is recorded. */
function stubDeliveryActivities(attempt: (attemptNumber: number) => unknown) {
  const calls = { attempts: 0, finished: [] as Array<{ deliveryId: string; status: string; reason?: string }> };
  const activities = {
    async prepareDeliveries(input: { eventId: string }) {
      return ['ep_a', 'ep_b'].map((endpointId) => ({ deliveryId: `dlv_${input.eventId}_${endpointId}`, endpointId, url: `https://${endpointId}.example.com/hook` }));
    },
    async attemptDelivery() {
      calls.attempts++;
      return attempt(calls.attempts);
    },
    async finishDelivery(input: { deliveryId: string; status: string; reason?: string }) {
      if (input.status !== 'pending') calls.finished.push(input);
    },
  };
  return { activities, calls };
}

const deliveryInput = (): DeliverWebhookInput => ({
  version: 1,
  deliveryId: `dlv_${randomUUID()}`,
  eventId: `evt_${randomUUID()}`,
  endpointId: 'ep_a',
  accountId: randomUUID(),
  retry,
});

async function runDelivery(attempt: (attemptNumber: number) => unknown, record?: string) {
  const { activities, calls } = stubDeliveryActivities(attempt);
  const { worker, taskQueue } = await createTestWorker(env, activities);
  const input = deliveryInput();
  const state = await worker.runUntil(async () => {
    const handle = await startDelivery({ client: env.client, taskQueue }, input, {
      workflowId: deliveryWorkflowId(input.eventId, input.endpointId),
      eventType: 'job.assigned',
      summary: 'test delivery',
    });
    const result = await handle.result();
    expect(await handle.query(deliveryState)).toEqual(result);
    if (record) await recordHistoryIfAsked(handle, record);
    return result;
  });
  return { state, calls, input };
}

describe('fanOutEvent workflow (stub activities)', () => {
  it('starts one delivery run per prepared target, with its id, search attributes and summary, and ends', async () => {
    const { activities, calls } = stubDeliveryActivities(() => ({ delivered: true }));
    const { worker, taskQueue } = await createTestWorker(env, activities);
    const eventId = `evt_${randomUUID()}`;
    const accountId = randomUUID();
    await worker.runUntil(async () => {
      await expect(startFanOut({ client: env.client, taskQueue }, { version: 1, eventId, accountId, eventType: 'job.accepted', retry })).resolves.toBe(true);
      const fanOut = env.client.workflow.getHandle(`event:${eventId}`);
      expect(await fanOut.result()).toEqual({ deliveries: 2 });
      // Publishing the same event again starts nothing.
      await expect(startFanOut({ client: env.client, taskQueue }, { version: 1, eventId, accountId, eventType: 'job.accepted', retry })).resolves.toBe(false);

      for (const endpointId of ['ep_a', 'ep_b']) {
        const child = env.client.workflow.getHandle(deliveryWorkflowId(eventId, endpointId));
        expect(await child.result()).toEqual({ status: 'succeeded' });
        const description = await child.describe();
        expect(description.type).toBe('deliverWebhook');
        expect(description.typedSearchAttributes.get(EntityType)).toBe('delivery');
        expect(description.typedSearchAttributes.get(EntityId)).toBe(`dlv_${eventId}_${endpointId}`);
        expect(description.typedSearchAttributes.get(EventType)).toBe('job.accepted');
        expect(await description.staticSummary()).toBe(`Deliver job.accepted ${eventId} to https://${endpointId}.example.com/hook`);
      }
      await recordHistoryIfAsked(fanOut, 'fan-out-event');
    });
    expect(calls.attempts).toBe(2);
    expect(calls.finished.map((call) => call.status)).toEqual(['succeeded', 'succeeded']);
  });
});

describe('deliverWebhook workflow (stub activities)', () => {
  it('retries a failing attempt on the schedule and succeeds', async () => {
    const { state, calls } = await runDelivery((n) => {
      if (n < 3) throw ApplicationFailure.retryable(`HTTP 503 (attempt ${n})`, 'DeliveryFailed');
      return { delivered: true };
    }, 'deliver-webhook-retried');
    expect(state).toEqual({ status: 'succeeded' });
    expect(calls.attempts).toBe(3);
    expect(calls.finished).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it('stops at a rejection without retrying, and records the reason', async () => {
    const { state, calls, input } = await runDelivery(() => {
      throw ApplicationFailure.nonRetryable('HTTP 400: the receiver rejected the event', 'DeliveryRejected');
    });
    expect(state).toEqual({ status: 'failed', reason: 'HTTP 400: the receiver rejected the event' });
    expect(calls.attempts).toBe(1);
    expect(calls.finished).toEqual([{ deliveryId: input.deliveryId, status: 'failed', reason: 'HTTP 400: the receiver rejected the event' }]);
  });

  it('fails the delivery once the attempts run out', async () => {
    const { state, calls } = await runDelivery((n) => {
      throw ApplicationFailure.retryable(`connection refused (attempt ${n})`, 'DeliveryFailed');
    });
    expect(state).toEqual({ status: 'failed', reason: 'connection refused (attempt 3)' });
    expect(calls.attempts).toBe(retry.maxAttempts);
  });

  it('fails the workflow task, not the run, when its own code breaks', async () => {
    // An answer the workflow code cannot read (here: none) stands in for a bug in that code.
    const { activities, calls } = stubDeliveryActivities(() => null);
    const { worker, taskQueue } = await createTestWorker(env, activities);
    const input = deliveryInput();
    await worker.runUntil(async () => {
      const handle = await startDelivery({ client: env.client, taskQueue }, input, {
        workflowId: deliveryWorkflowId(input.eventId, input.endpointId),
        eventType: 'job.assigned',
        summary: 'broken delivery',
      });
      const failure = await waitForHistoryEvent(handle, isWorkflowTaskFailure);
      expect(failure.workflowTaskFailedEventAttributes?.failure?.message).toMatch(/delivered/);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test over');
    });
    expect(calls.finished).toEqual([]);
  });
});
