import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryId, EntityId, EntityType } from '../../src/sandbox-safe/search-attributes.ts';
import { batchDeliveries, deliveryBatchWorkflowId, type DeliverBatchInput } from '../../workflows/deliver-batch.contract.ts';
import { startDeliveryBatch } from '../../src/temporal/starters/deliver-batch.ts';
import type { DeliveryRetry } from '../../workflows/deliver-batch.contract.ts';
import { recordHistoryIfAsked } from '../support/temporal.ts';
import { connectTestEnvironment, createTestWorker, startTimeSkippingEnvironment } from '../support/temporal-worker.ts';

const retry: DeliveryRetry = { initialMs: 50, backoff: 2, maxAttempts: 3, timeoutMs: 1000 };

type Verdict = (attempt: number) => unknown;

/** Stub delivery activities: each delivery's attempts follow its own script; every call is recorded. */
function stubActivities(scripts: Record<string, Verdict>) {
  const calls = { attempts: [] as Array<{ deliveryId: string; attempt: number; at: number }>, finished: [] as Array<{ deliveryId: string; status: string; reason?: string }> };
  const activities = {
    async attemptDelivery(input: { deliveryId: string }) {
      const { attempt } = Context.current().info;
      calls.attempts.push({ deliveryId: input.deliveryId, attempt, at: Date.now() });
      return scripts[input.deliveryId]!(attempt);
    },
    async finishDelivery(input: { deliveryId: string; status: string; reason?: string }) {
      calls.finished.push(input);
    },
  };
  return { activities, calls };
}

const batchOf = (deliveryIds: string[]): DeliverBatchInput => ({
  version: 1,
  batchId: `dbt_${randomUUID()}`,
  deliveries: deliveryIds.map((deliveryId, index) => ({ deliveryId, eventId: `evt_${index}`, endpointId: `ep_${index}`, eventType: index === 0 ? 'job.assigned' : 'webhook.test' })),
  retry,
});

describe('deliverBatch workflow (stub activities)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await connectTestEnvironment();
  });
  afterAll(() => env?.teardown());

  it('sends every delivery side by side, each on its own retry schedule, and ends when all are final', async () => {
    const ok = `dlv_ok_${randomUUID()}`;
    const flaky = `dlv_flaky_${randomUUID()}`;
    const rejected = `dlv_rejected_${randomUUID()}`;
    const { activities, calls } = stubActivities({
      [ok]: () => ({ delivered: true }),
      [flaky]: (n) => {
        if (n < 3) throw ApplicationFailure.retryable(`HTTP 503 (attempt ${n})`, 'DeliveryFailed');
        return { delivered: true };
      },
      [rejected]: () => {
        throw ApplicationFailure.nonRetryable('HTTP 400: the receiver rejected the event', 'DeliveryRejected');
      },
    });
    const { worker, taskQueue } = await createTestWorker(env, activities);
    const input = batchOf([ok, flaky, rejected]);
    await worker.runUntil(async () => {
      await expect(startDeliveryBatch({ client: env.client, taskQueue }, input)).resolves.toBe(true);
      const handle = env.client.workflow.getHandle(deliveryBatchWorkflowId(input.batchId));
      expect(await handle.result()).toEqual({ succeeded: 2, failed: 1 });
      expect(await handle.query(batchDeliveries)).toEqual([
        { deliveryId: ok, status: 'succeeded' },
        { deliveryId: flaky, status: 'succeeded' },
        { deliveryId: rejected, status: 'failed', reason: 'HTTP 400: the receiver rejected the event' },
      ]);
      // Starting the same batch again (a relay that died before marking it started) starts nothing.
      await expect(startDeliveryBatch({ client: env.client, taskQueue }, input)).resolves.toBe(false);

      const description = await handle.describe();
      expect(description.type).toBe('deliverBatch');
      expect(description.typedSearchAttributes.get(EntityType)).toBe('delivery-batch');
      expect(description.typedSearchAttributes.get(EntityId)).toBe(input.batchId);
      expect(description.typedSearchAttributes.get(DeliveryId)).toEqual([ok, flaky, rejected]);
      expect(await description.staticSummary()).toBe('Deliver 3 events: job.assigned ×1, webhook.test ×2');
      await recordHistoryIfAsked(handle, 'deliver-batch');
    });
    expect(calls.attempts.filter((call) => call.deliveryId === flaky).map((call) => call.attempt)).toEqual([1, 2, 3]);
    expect(calls.attempts.filter((call) => call.deliveryId !== flaky)).toHaveLength(2);
    // A delivered attempt marks its own row; only the failed delivery needs finishing.
    expect(calls.finished).toEqual([{ deliveryId: rejected, status: 'failed', reason: 'HTTP 400: the receiver rejected the event' }]);
  });

  it('fails a delivery whose attempts run out, with the last attempt\'s reason, while the others succeed', async () => {
    const ok = `dlv_ok_${randomUUID()}`;
    const down = `dlv_down_${randomUUID()}`;
    const { activities, calls } = stubActivities({
      [ok]: () => ({ delivered: true }),
      [down]: (n) => {
        throw ApplicationFailure.retryable(`connection refused (attempt ${n})`, 'DeliveryFailed');
      },
    });
    const { worker, taskQueue } = await createTestWorker(env, activities);
    const input = batchOf([ok, down]);
    const result = await worker.runUntil(async () => {
      await startDeliveryBatch({ client: env.client, taskQueue }, input);
      return env.client.workflow.getHandle(deliveryBatchWorkflowId(input.batchId)).result();
    });
    expect(result).toEqual({ succeeded: 1, failed: 1 });
    expect(calls.attempts.filter((call) => call.deliveryId === down)).toHaveLength(retry.maxAttempts);
    expect(calls.finished).toEqual([{ deliveryId: down, status: 'failed', reason: 'connection refused (attempt 3)' }]);
  });
});

describe('deliverBatch workflow on a time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await startTimeSkippingEnvironment();
  });
  afterAll(() => env?.teardown());

  it('waits out a Retry-After of one hour for one delivery, while the others are done at once', { timeout: 60_000 }, async () => {
    const ok = `dlv_ok_${randomUUID()}`;
    const limited = `dlv_limited_${randomUUID()}`;
    const { activities, calls } = stubActivities({
      [ok]: () => ({ delivered: true }),
      [limited]: (n) => {
        if (n === 1) throw ApplicationFailure.create({ message: 'HTTP 429', type: 'DeliveryFailed', nextRetryDelay: '1 hour' });
        return { delivered: true };
      },
    });
    const { worker, taskQueue } = await createTestWorker(env, activities);
    const input = { ...batchOf([ok, limited]), retry: { ...retry, initialMs: 1000 } };
    const started = await env.currentTimeMs();
    await worker.runUntil(async () => {
      await startDeliveryBatch({ client: env.client, taskQueue }, input);
      const handle = env.client.workflow.getHandle(deliveryBatchWorkflowId(input.batchId));
      expect(await handle.result()).toEqual({ succeeded: 2, failed: 0 });
    });
    // The second attempt came after the receiver's hour, not after the schedule's one second.
    expect((await env.currentTimeMs()) - started).toBeGreaterThanOrEqual(3_600_000);
    expect(calls.attempts.filter((call) => call.deliveryId === limited).map((call) => call.attempt)).toEqual([1, 2]);
  });
});
