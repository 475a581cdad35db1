import { describe, expect, it } from 'vitest';
import { newId } from '../../src/security/ids.ts';
import { deliveryIdsAttribute } from '../../workflows/deliver-batch.contract.ts';
import { deliveryBatchSummary } from '../../src/temporal/starters/deliver-batch.ts';

describe('a delivery batch run in the Temporal UI', () => {
  it('lists every delivery id of the largest batch the relay claims (64) within the 2 KB search attribute limit', () => {
    const ids = Array.from({ length: 64 }, () => newId('dlv_'));
    expect(deliveryIdsAttribute(ids)).toEqual(ids);
    expect(Buffer.byteLength(JSON.stringify(ids))).toBeLessThanOrEqual(2048);
  });

  it('cuts a longer list to fit, keeping the first ids', () => {
    const ids = Array.from({ length: 100 }, () => newId('dlv_'));
    const kept = deliveryIdsAttribute(ids);
    expect(kept).toEqual(ids.slice(0, kept.length));
    expect(kept.length).toBeLessThan(100);
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(2048);
  });

  it('summarises the events a run sends', () => {
    const delivery = (eventType: string, n: number) => ({ deliveryId: `dlv_${n}`, eventId: `evt_${n}`, endpointId: `ep_${n}`, eventType });
    const batch = (deliveries: ReturnType<typeof delivery>[]) => ({ version: 1 as const, batchId: 'dbt_1', deliveries, retry: { initialMs: 1, backoff: 2, maxAttempts: 3, timeoutMs: 1000 } });
    expect(deliveryBatchSummary(batch([delivery('job.assigned', 1)]))).toBe('Deliver 1 event: job.assigned evt_1 to endpoint ep_1');
    expect(deliveryBatchSummary(batch([delivery('a', 1), delivery('b', 2), delivery('a', 3)]))).toBe('Deliver 3 events: a ×2, b ×1');
    const many = batch(['a', 'b', 'c', 'd', 'e', 'f'].map((type, n) => delivery(type, n)));
    expect(deliveryBatchSummary(many)).toBe('Deliver 6 events: a ×1, b ×1, c ×1, d ×1, e ×1, …');
  });
});
