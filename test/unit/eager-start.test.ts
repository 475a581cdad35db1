import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { ExperienceDefinition } from '../../src/domain/experiences/definition-schema.ts';
import { startDeliveryBatch } from '../../src/temporal/starters/deliver-batch.ts';
import { startExperienceRun } from '../../src/temporal/starters/experience-run.ts';
import { startIngestBatch } from '../../src/temporal/starters/ingest-batch.ts';
import type { TemporalAccess } from '../../src/temporal/temporal-access.ts';

/** A client that records the options of every start. */
function recordingAccess(eagerStart: boolean | undefined): { temporal: TemporalAccess; starts: Array<{ requestEagerStart?: boolean }> } {
  const starts: Array<{ requestEagerStart?: boolean }> = [];
  const client = {
    workflow: {
      async start(_type: string, options: { requestEagerStart?: boolean }) {
        starts.push(options);
        return {};
      },
    },
  } as unknown as Client;
  return { temporal: { client, taskQueue: 'bulk', eagerStart }, starts };
}

const definition: ExperienceDefinition = {
  name: 'Eager',
  trigger: { eventType: 'signup', conditions: null },
  entry: { reentry: 'never' },
  goals: [],
  maxDurationSeconds: 3600,
  start: 'done',
  nodes: [{ id: 'done', type: 'exit' }],
};

/** The three runs the worker process starts on the queue its own worker polls (ADR 0063). */
const startAll = async (temporal: TemporalAccess) => {
  await startIngestBatch(temporal, { version: 1, batchId: 'b1', groups: [['evt_1']], chunkSize: 100 });
  await startDeliveryBatch(temporal, { version: 1, batchId: 'b2', deliveries: [{ deliveryId: 'dlv_1', eventId: 'evt_2', endpointId: 'ep_1', eventType: 'webhook.test' }], retry: { initialMs: 1000, backoff: 2, maxAttempts: 3, timeoutMs: 5000 } });
  const trigger = { eventId: 'evt_1', eventType: 'signup', occurredAt: new Date(0).toISOString() };
  await startExperienceRun(temporal, 'experience:exp_1:v1', {
    version: 1, runId: 'run_1', accountId: 'a', experienceId: 'exp_1', experienceName: 'Eager', experienceVersion: 1, definition,
    visitorId: null, clientUserId: null, trigger, enteredAt: 0,
  });
};

describe('runs the worker starts', () => {
  it('ask for eager start when the client shares a worker\'s connection', async () => {
    const { temporal, starts } = recordingAccess(true);
    await startAll(temporal);
    expect(starts.map((options) => options.requestEagerStart)).toEqual([true, true, true]);
  });

  it('do not ask otherwise (the API\'s client, or a worker process without the bulk queue)', async () => {
    for (const eagerStart of [undefined, false]) {
      const { temporal, starts } = recordingAccess(eagerStart);
      await startAll(temporal);
      expect(starts.map((options) => options.requestEagerStart)).toEqual([false, false, false]);
    }
  });
});
