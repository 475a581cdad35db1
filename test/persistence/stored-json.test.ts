import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { routeInboundEvent } from '../../src/domain/ingest/route-inbound-event.ts';
import { App } from '../../src/persistence/entities/app.ts';
import { InboundEvent } from '../../src/persistence/entities/inbound-event.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { ParsedJsonType, StoredJsonError } from '../../src/persistence/stored-json.ts';
import type { TemporalAccess } from '../../src/temporal/temporal-access.ts';
import { newAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { newConnection } from '../support/ingest.ts';

// What a jsonb column holds is parsed by its schema when a row is loaded (src/persistence/stored-json.ts): a value of
// the wrong shape fails the load, naming the column, instead of travelling on as the type it was cast to.

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(() => orm?.close());

/** A PROCESSED event whose stored routing outcome is `outcome`, as jsonb. */
async function processedEvent(outcome: unknown): Promise<string> {
  const account = await newAccount();
  const connection = await newConnection(account);
  const id = `evt_stored_${randomUUID().slice(0, 8)}`;
  await query(
    `insert into inbound_events (id, account_id, connection_id, message_id, event_type, occurred_at, status, workflow_id, task_queue, routing_outcome, created_at)
     values ($1, $2, $3, $4, 'signup', now(), 'PROCESSED', $5, 'no-relay-serves-this-queue', $6, now())`,
    [id, account.accountId, connection.connectionId, randomUUID(), `ingest-batch:${id}`, JSON.stringify(outcome)],
  );
  return id;
}

describe('jsonb read back', () => {
  it('is parsed for every jsonb column of every entity', () => {
    const jsonColumns = [...orm.getMetadata().getAll().values()].flatMap((meta) => meta.props.filter((prop) => prop.columnTypes?.[0] === 'jsonb').map((prop) => ({ column: `${meta.tableName}.${prop.fieldNames[0]}`, prop })));
    expect(jsonColumns.length).toBeGreaterThanOrEqual(17);
    expect(jsonColumns.filter(({ prop }) => !(prop.customType instanceof ParsedJsonType)).map(({ column }) => column)).toEqual([]);
  });

  it('gives the stored routing outcome back to a retried routing step as it was decided', async () => {
    const outcome = { matchedExperiences: ['exp_1'], startedRuns: [], deliveredTo: [], reason: 'started no run' };
    const eventId = await processedEvent(outcome);
    const deps = { em: orm.em.fork(), temporal: { taskQueue: 'no-relay-serves-this-queue' } as TemporalAccess, delivery: inject('delivery') };
    await expect(routeInboundEvent(deps, { eventId, visitorId: null, released: false })).resolves.toEqual(outcome);
  });

  it('fails a routing outcome of the wrong shape, naming the column and the field', async () => {
    const eventId = await processedEvent({ matchedExperiences: ['exp_1'], startedRuns: 'run_1', reason: 'started run_1' });
    const deps = { em: orm.em.fork(), temporal: { taskQueue: 'no-relay-serves-this-queue' } as TemporalAccess, delivery: inject('delivery') };
    const failure = routeInboundEvent(deps, { eventId, visitorId: null, released: false });
    await expect(failure).rejects.toThrow(StoredJsonError);
    await expect(failure).rejects.toThrow(/inbound_events\.routing_outcome[\s\S]*startedRuns[\s\S]*deliveredTo/);
    await expect(orm.em.fork().findOneOrFail(InboundEvent, { id: eventId })).rejects.toThrow(/inbound_events\.routing_outcome/);
  });

  it("fails an app's quiet hours of the wrong shape when the app is loaded", async () => {
    const { appId } = await newAccount();
    await query(`update apps set quiet_hours = $2 where id = $1`, [appId, JSON.stringify({ start: '22:00', end: '07:00', action: 'mute' })]);
    await expect(orm.em.fork().findOneOrFail(App, { id: appId })).rejects.toThrow(/apps\.quiet_hours[\s\S]*action/);
  });
});
