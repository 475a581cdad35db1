import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { redeliver } from '../../src/domain/deliveries/redeliver.ts';
import { linkInboundEvent } from '../../src/domain/ingest/link-inbound-event.ts';
import type { EventConfig } from '../../src/persistence/entities/connection.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { ingestWorkflowId } from '../../workflows/ingest-event.contract.ts';
import { newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { sendTest, waitForFinishedDelivery } from '../support/deliveries.ts';
import { directEvent, newConnection, postSigned, waitForEvent } from '../support/ingest.ts';
import { newEndpoint } from '../support/webhooks.ts';

// Domain steps on the real database with a Temporal client that fails when told to: what a step leaves behind when
// its Temporal call fails, and what its retry does.

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(() => orm?.close());

/** A client whose signals and starts are recorded, and fail while `failing` is set. */
function flakyClient() {
  const state = { failing: true, signalled: [] as string[], started: 0 };
  const unavailable = () => Object.assign(new Error('14 UNAVAILABLE: temporal is down'), { code: 14 });
  const client = {
    workflow: {
      getHandle: (workflowId: string) => ({
        async signal() {
          if (state.failing) throw unavailable();
          state.signalled.push(workflowId);
        },
      }),
      async start() {
        state.started++;
        if (state.failing) throw unavailable();
        return {};
      },
    },
  } as unknown as Client;
  return { client, state };
}

describe('recovery after a failed Temporal call', () => {
  it('releases held events on the retry of the step that linked the person, not only on its first attempt', async () => {
    const account = await newAccount();
    const holding = await newConnection(account, { eventConfig: { createVisitors: false } });
    const held = directEvent({ eventType: 'page.viewed', clientUserId: 'u_retry' });
    await postSigned(holding, held);
    const heldRow = await waitForEvent(account, held.messageId, 'HELD');

    // An identify on a connection that creates visitors: its first attempt commits the visitor, then cannot signal.
    const linking = await newConnection(account);
    const config: EventConfig = { createVisitors: true, holdTtlHours: 1 };
    const event = { ...directEvent({ eventType: 'identify', clientUserId: 'u_retry' }), version: '1' as const };
    const accepted = { eventId: `iev_retry_${Date.now()}`, accountId: account.accountId, connectionId: linking.connectionId, workflowId: ingestWorkflowId(linking.connectionId, event.messageId), event };
    const temporal = flakyClient();
    await expect(linkInboundEvent({ em: orm.em.fork(), temporal }, accepted, config)).rejects.toThrow(/UNAVAILABLE/);
    expect(await query('select 1 from visitors where account_id = $1 and client_user_id = $2', [account.accountId, 'u_retry'])).toHaveLength(1);

    temporal.state.failing = false;
    await expect(linkInboundEvent({ em: orm.em.fork(), temporal }, accepted, config)).resolves.toMatchObject({ outcome: 'linked' });
    expect(temporal.state.signalled).toEqual([heldRow.workflowId]);
  });

  it('takes a redelivery while Temporal is unreachable: its row waits in the outbox for the relay, nothing is called', async () => {
    const account = await newAccount();
    const endpoint = await newEndpoint(account);
    try {
      const delivered = await waitForFinishedDelivery(account, endpoint.endpointId, await sendTest(account, endpoint.endpointId));
      const temporal = flakyClient();
      const deps = { em: orm.em.fork(), temporal: { ...temporal, taskQueue: 'no-relay-serves-this-queue' }, delivery: inject('delivery') };
      const redelivery = await redeliver(deps, account.accountId, delivered.deliveryId);
      expect(temporal.state.started).toBe(0);
      expect(await query('select status, task_queue, batch_id from deliveries where redelivery_of = $1', [delivered.deliveryId])).toEqual([
        { status: 'pending', task_queue: 'no-relay-serves-this-queue', batch_id: null },
      ]);
      expect(redelivery.workflowId).toBeNull();
    } finally {
      await endpoint.receiver.close();
    }
  });
});
