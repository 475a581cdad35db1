import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ActivityDeps } from '../../activities/deps.ts';
import { createIngestActivities } from '../../activities/ingest.ts';
import { linkAndRouteChunk } from '../../src/domain/ingest/link-and-route-chunk.ts';
import { processInboundEvents } from '../../src/domain/ingest/process-inbound-events.ts';
import { dispatchRouting } from '../../src/domain/routing/dispatch-routing.ts';
import type { Logger } from '../../src/logger.ts';
import { createWorkerMetrics } from '../../src/metrics/worker-metrics.ts';
import { createOutboundHttpClient } from '../../src/outbound/http-client.ts';
import type { ExperienceRunInput } from '../../workflows/experience-run.contract.ts';
import type { TemporalAccess } from '../../src/temporal/temporal-access.ts';
import { Connection } from '../../src/persistence/entities/connection.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { parseAllowCidrs } from '../../src/security/ip-policy.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import { newAccount, type TestAccount } from '../support/api.ts';
import { query } from '../support/db.ts';
import { experienceDefinition, publishedExperience } from '../support/experiences.ts';
import { newConnection, type ConnectionFixture } from '../support/ingest.ts';
import { newEndpoint } from '../support/webhooks.ts';

// The chunk step of an ingestBatch run on the real database, called directly: rows are written into the outbox on a
// task queue no relay serves, so nothing but the test processes them, and Temporal is a client that records calls.

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(() => orm?.close());

const unservedQueue = 'no-relay-serves-this-queue';
/** What routing publishes a new run's first actions with: into the outbox, for a task queue no relay serves. */
const publish = () => ({ temporal: { taskQueue: unservedQueue } as TemporalAccess, delivery: inject('delivery') });
let sequence = 0;

/** Writes one RECEIVED event into the outbox, as the API would; answers its id. */
async function receivedEvent(
  account: TestAccount,
  connection: ConnectionFixture,
  event: { eventType: string; clientUserId?: string; attributes?: Record<string, unknown> },
): Promise<string> {
  const id = `evt_chunk_${Date.now()}_${++sequence}`;
  const messageId = `chunk-${sequence}-${randomUUID()}`;
  await query(
    `insert into inbound_events (id, account_id, connection_id, message_id, event_type, occurred_at, client_user_id, attributes, status, workflow_id, task_queue, created_at)
     values ($1, $2, $3, $4, $5, now(), $6, $7, 'RECEIVED', $8, $9, clock_timestamp())`,
    [id, account.accountId, connection.connectionId, messageId, event.eventType, event.clientUserId ?? null, event.attributes ? JSON.stringify(event.attributes) : null, `ingest-batch:test-${sequence}`, unservedQueue],
  );
  return id;
}

const rowsOf = (ids: string[]) =>
  query<{ id: string; status: string; status_reason: string | null; visitor_id: string | null; workflow_id: string; routing_outcome: any }>(
    'select id, status, status_reason, visitor_id, workflow_id, routing_outcome from inbound_events where id = any($1)',
    [ids],
  ).then((rows) => new Map(rows.map((row) => [row.id, row])));

const connectionsOf = async (...fixtures: ConnectionFixture[]) =>
  new Map((await orm.em.fork().find(Connection, { id: { $in: fixtures.map((fixture) => fixture.connectionId) } })).map((row) => [row.id, row]));

/** An experience whose runs wait an hour for an event that never comes: they stay live. */
const waitingExperience = () =>
  experienceDefinition({
    entry: { reentry: 'never' },
    nodes: [
      { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 3600, next: 'done', timeoutNext: 'done' },
      { id: 'done', type: 'exit' },
    ],
  });

/** An experience like `waitingExperience` whose runs also hear `cart.viewed`, a goal that does not end them. */
const listeningExperience = () =>
  experienceDefinition({
    entry: { reentry: 'never' },
    goals: [{ id: 'browsed', eventType: 'cart.viewed', conditions: null, exit: false }],
    nodes: [
      { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 3600, next: 'done', timeoutNext: 'done' },
      { id: 'done', type: 'exit' },
    ],
  });

/** A Temporal client that records the runs started and the signals sent with a start (the events, by id). */
function recordingTemporal() {
  const calls = { started: [] as string[], startInputs: [] as ExperienceRunInput[], signalledWithStart: [] as string[], handedOver: [] as string[][] };
  const client = {
    workflow: {
      async start(_type: string, options: { workflowId: string; args: [ExperienceRunInput] }) {
        calls.started.push(options.workflowId);
        calls.startInputs.push(options.args[0]);
        return {};
      },
      async signalWithStart(_type: string, options: { workflowId: string; signalArgs: [Array<{ eventId: string }>] }) {
        calls.signalledWithStart.push(options.workflowId);
        calls.handedOver.push(options.signalArgs[0].map((event) => event.eventId));
        return {};
      },
    },
  } as unknown as Client;
  return { temporal: { client, taskQueue: unservedQueue }, calls };
}

describe('deciding a chunk of events together', () => {
  it('links, creates, holds, ignores and routes as the per-event steps would, in order per person', async () => {
    const account = await newAccount();
    const creating = await newConnection(account, { eventConfig: { eventTypes: ['order.completed', 'page.viewed'] } });
    const holding = await newConnection(account, { eventConfig: { createVisitors: false } });
    const [knownVisitor] = await query<{ id: string }>(
      `insert into visitors (id, account_id, client_user_id, attributes, created_at, updated_at) values ($1, $2, 'u_known', '{"tier":"gold"}', now(), now()) returning id`,
      [randomUUID(), account.accountId],
    );

    const ids = {
      newFirst: await receivedEvent(account, creating, { eventType: 'order.completed', clientUserId: 'u_new', attributes: { plan: 'pro', n: 1 } }),
      ignored: await receivedEvent(account, creating, { eventType: 'cart.viewed', clientUserId: 'u_new' }),
      newSecond: await receivedEvent(account, creating, { eventType: 'page.viewed', clientUserId: 'u_new', attributes: { n: 2 } }),
      anonymous: await receivedEvent(account, creating, { eventType: 'order.completed' }),
      unknownHeld: await receivedEvent(account, holding, { eventType: 'order.completed', clientUserId: 'u_stranger' }),
      known: await receivedEvent(account, holding, { eventType: 'order.completed', clientUserId: 'u_known', attributes: { country: 'DE' } }),
    };
    const decided = await linkAndRouteChunk(orm.em.fork(), Object.values(ids), await connectionsOf(creating, holding), publish());
    expect([...decided.keys()].sort()).toEqual(Object.values(ids).sort());

    const rows = await rowsOf(Object.values(ids));
    const [created] = await query<{ id: string; attributes: unknown }>('select id, attributes from visitors where account_id = $1 and client_user_id = $2', [account.accountId, 'u_new']);
    expect(created!.attributes).toEqual({ plan: 'pro', n: 2 });
    expect(rows.get(ids.newFirst)).toMatchObject({ status: 'PROCESSED', visitor_id: created!.id });
    expect(rows.get(ids.newSecond)).toMatchObject({ status: 'PROCESSED', visitor_id: created!.id });
    expect(rows.get(ids.ignored)).toMatchObject({ status: 'IGNORED', status_reason: "eventType cart.viewed is not among the connection's eventTypes", visitor_id: null });
    expect(rows.get(ids.anonymous)).toMatchObject({ status: 'PROCESSED', visitor_id: null });
    expect(rows.get(ids.anonymous)!.routing_outcome.reason).toBe('no experience is triggered by order.completed, and the person has no live run');
    expect(rows.get(ids.unknownHeld)).toMatchObject({ status: 'HELD', status_reason: 'waiting for visitor u_stranger', visitor_id: null });
    expect(rows.get(ids.unknownHeld)!.workflow_id).toMatch(new RegExp(`^ingest:${holding.connectionId}:chunk-`));
    expect(rows.get(ids.known)).toMatchObject({ status: 'PROCESSED', visitor_id: knownVisitor!.id });
    const [known] = await query<{ attributes: unknown }>('select attributes from visitors where id = $1', [knownVisitor!.id]);
    expect(known!.attributes).toEqual({ tier: 'gold', country: 'DE' });
    expect(await query('select 1 from visitors where account_id = $1 and client_user_id = $2', [account.accountId, 'u_stranger'])).toHaveLength(0);
  });

  it('leaves a person with a HELD event to the per-event path, and decides the others', async () => {
    const account = await newAccount();
    const holding = await newConnection(account, { eventConfig: { createVisitors: false } });
    const olderHeld = await receivedEvent(account, holding, { eventType: 'order.completed', clientUserId: 'u_waiting' });
    await query(`update inbound_events set status = 'HELD' where id = $1`, [olderHeld]);
    const behindHeld = await receivedEvent(account, holding, { eventType: 'order.completed', clientUserId: 'u_waiting' });
    const anonymous = await receivedEvent(account, holding, { eventType: 'order.completed' });

    const decided = await linkAndRouteChunk(orm.em.fork(), [behindHeld, anonymous], await connectionsOf(holding), publish());
    expect([...decided.keys()]).toEqual([anonymous]);
    const rows = await rowsOf([behindHeld, anonymous]);
    expect(rows.get(behindHeld)!.status).toBe('RECEIVED');
    expect(rows.get(anonymous)!.status).toBe('PROCESSED');
  });

  it('starts runs, hands the run its earlier event started the later events it hears, in one signal, and carries it all out after the commit', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const { experienceId } = await publishedExperience(account, listeningExperience());
    const first = await receivedEvent(account, connection, { eventType: 'signup', clientUserId: 'u_experience' });
    const browsed = await receivedEvent(account, connection, { eventType: 'cart.viewed', clientUserId: 'u_experience' });
    const unheard = await receivedEvent(account, connection, { eventType: 'page.viewed', clientUserId: 'u_experience' });
    const browsedAgain = await receivedEvent(account, connection, { eventType: 'cart.viewed', clientUserId: 'u_experience' });
    const ids = [first, browsed, unheard, browsedAgain];
    const { temporal, calls } = recordingTemporal();

    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;
    const processed = await processInboundEvents({ em: orm.em.fork(), temporal, delivery: inject('delivery'), logger }, ids);
    expect(processed.map((event) => event.state.status)).toEqual(['PROCESSED', 'PROCESSED', 'PROCESSED', 'PROCESSED']);
    expect(warnings).toEqual([]); // decided together, not one by one after a failed chunk
    const rows = await rowsOf(ids);
    const [run] = await query<{ id: string; workflow_id: string }>('select id, workflow_id from experience_runs where experience_id = $1', [experienceId]);
    expect(rows.get(first)!.routing_outcome).toMatchObject({ matchedExperiences: [experienceId], startedRuns: [run!.id], deliveredTo: [] });
    for (const heard of [browsed, browsedAgain]) expect(rows.get(heard)!.routing_outcome).toMatchObject({ matchedExperiences: [], startedRuns: [], deliveredTo: [run!.id] });
    // No goal or waitForEvent of the run listens to page.viewed: it is not handed over.
    expect(rows.get(unheard)!.routing_outcome).toMatchObject({ startedRuns: [], deliveredTo: [] });
    expect(calls.started).toEqual([run!.workflow_id]);
    expect(calls.signalledWithStart).toEqual([run!.workflow_id]);
    expect(calls.handedOver).toEqual([[browsed, browsedAgain]]);

    // A retry of the activity after the commit finds them PROCESSED and carries their decisions out again.
    await processInboundEvents({ em: orm.em.fork(), temporal, delivery: inject('delivery') }, ids);
    expect(calls.started).toEqual([run!.workflow_id, run!.workflow_id]);
    expect(calls.handedOver).toEqual([[browsed, browsedAgain], [browsed, browsedAgain]]);
  });

  it("takes a new run's first steps in routing: a run that reaches its exit ends there without a workflow, one that must wait starts from there", async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const { experienceId: endsAtOnce } = await publishedExperience(
      account,
      experienceDefinition({
        nodes: [
          { id: 'check', type: 'condition', if: { field: 'event.attributes.plan', op: 'eq', value: 'pro' }, then: 'hello', else: 'done' },
          { id: 'hello', type: 'webhook', result: { greeting: 'hi {{event.attributes.plan}}' }, next: 'done' },
          { id: 'done', type: 'exit' },
        ],
      }),
    );
    const { experienceId: waits } = await publishedExperience(
      account,
      experienceDefinition({
        nodes: [
          { id: 'hello', type: 'webhook', result: { step: 'first' }, next: 'await' },
          { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 3600, next: 'done', timeoutNext: 'done' },
          { id: 'done', type: 'exit' },
        ],
      }),
    );
    const signup = await receivedEvent(account, connection, { eventType: 'signup', clientUserId: 'u_first', attributes: { plan: 'pro' } });
    const { temporal, calls } = recordingTemporal();
    await processInboundEvents({ em: orm.em.fork(), temporal, delivery: inject('delivery') }, [signup]);

    const runOf = async (experienceId: string) =>
      (await query<any>('select id, status, end_reason, workflow_id, current_node_id, path, entry_key from experience_runs where experience_id = $1', [experienceId]))[0];
    const ended = await runOf(endsAtOnce);
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'completed', workflow_id: null, current_node_id: 'done', entry_key: expect.stringMatching(/^person:/) });
    expect(ended.path.map((step: any) => [step.nodeId, step.outcome])).toEqual([['check', 'then'], ['hello', expect.stringMatching(/^sent evt_/)], ['done', 'exit']]);
    const waiting = await runOf(waits);
    expect(waiting).toMatchObject({ status: 'running', workflow_id: expect.any(String), current_node_id: 'await' });
    expect(waiting.path.map((step: any) => step.nodeId)).toEqual(['hello']);
    const [routed] = (await rowsOf([signup])).values();
    expect(routed!.routing_outcome).toMatchObject({ startedRuns: expect.arrayContaining([ended.id, waiting.id]), deliveredTo: [] });

    // Only the waiting run has a workflow, started at the node routing stopped at, with the path so far.
    expect(calls.started).toEqual([waiting.workflow_id]);
    expect(calls.startInputs[0]!.walked).toEqual({ nodeId: 'await', path: waiting.path });
    const published = () =>
      query<{ type: string; data: any }>(`select type, body::jsonb->'data' as data from outbound_events where account_id = $1 order by type, id`, [account.accountId]);
    const events = await published();
    expect(events.map((event) => event.type)).toEqual(['experience.action', 'experience.action', 'experience.ended']);
    expect(events.map((event) => event.data.result)).toEqual(
      expect.arrayContaining([{ greeting: 'hi pro', nodeId: 'hello' }, { step: 'first', nodeId: 'hello' }, { reason: 'completed', nodeId: 'done' }]),
    );

    // A retry after the commit publishes nothing again and starts only the waiting run (again, which is harmless).
    await processInboundEvents({ em: orm.em.fork(), temporal, delivery: inject('delivery') }, [signup]);
    expect(await published()).toHaveLength(3);
    expect(calls.started).toEqual([waiting.workflow_id, waiting.workflow_id]);
  });

  it('releases an after_exit entry when a run ends in routing, so the same person enters again', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const { experienceId } = await publishedExperience(account, experienceDefinition({ entry: { reentry: 'after_exit' }, nodes: [{ id: 'done', type: 'exit' }] }));
    const ids = [
      await receivedEvent(account, connection, { eventType: 'signup', clientUserId: 'u_again' }),
      await receivedEvent(account, connection, { eventType: 'signup', clientUserId: 'u_again' }),
    ];
    const { temporal, calls } = recordingTemporal();
    await processInboundEvents({ em: orm.em.fork(), temporal, delivery: inject('delivery') }, ids);
    const runs = await query<{ status: string; entry_key: string | null; workflow_id: string | null }>(
      'select status, entry_key, workflow_id from experience_runs where experience_id = $1',
      [experienceId],
    );
    expect(runs).toEqual([
      { status: 'completed', entry_key: null, workflow_id: null },
      { status: 'completed', entry_key: null, workflow_id: null },
    ]);
    expect(calls.started).toEqual([]);
  });

  it('stops carrying decisions out once its attempt is cancelled (a timed-out chunk), leaving them to the retry', async () => {
    const { temporal, calls } = recordingTemporal();
    const outcome = { matchedExperiences: [], startedRuns: ['run_after_cancel'], deliveredTo: ['run_live'], reason: '' };
    await expect(dispatchRouting({ em: orm.em.fork(), temporal, signal: AbortSignal.abort() }, [{ eventId: 'iev_x', outcome }])).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(calls.started).toEqual([]);
    expect(calls.signalledWithStart).toEqual([]);
  });

  it('starts the runs one event enters side by side, not one after another', async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const experiences = [await publishedExperience(account, waitingExperience()), await publishedExperience(account, waitingExperience()), await publishedExperience(account, waitingExperience())];
    const event = await receivedEvent(account, connection, { eventType: 'signup', clientUserId: 'u_many' });

    // Each start answers only once all three are in flight (or, if they come one after another, after 5 s).
    const order: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const allInFlight = Promise.withResolvers<void>();
    const client = {
      workflow: {
        async start(_type: string, options: { workflowId: string }) {
          mostInFlight = Math.max(mostInFlight, ++inFlight);
          if (inFlight === experiences.length) allInFlight.resolve();
          await Promise.race([allInFlight.promise, new Promise((resolve) => setTimeout(resolve, 5_000))]);
          inFlight -= 1;
          order.push(`start ${options.workflowId}`);
          return {};
        },
        async signalWithStart(_type: string, options: { workflowId: string }) {
          order.push(`signal ${options.workflowId}`);
          return {};
        },
      },
    } as unknown as Client;

    const [processed] = await processInboundEvents({ em: orm.em.fork(), temporal: { client, taskQueue: unservedQueue }, delivery: inject('delivery') }, [event]);
    expect(processed!.state.status).toBe('PROCESSED');
    expect(mostInFlight).toBe(experiences.length);
    expect(order).toHaveLength(experiences.length);
    expect(order.every((call) => call.startsWith('start '))).toBe(true);
  });
});

describe('the chunk step as an activity (processInboundEvents)', () => {
  // On a task queue no relay serves, nothing but the activity can send what its routing wrote: the test sees the
  // first attempt the chunk makes itself (ADR 0072), which on the suite's queue a relay woken by another test's publish
  // may claim first (test/api/experience-actions-immediately.test.ts takes either path).
  const http = createOutboundHttpClient({ allow: parseAllowCidrs('127.0.0.0/8,::1/128'), timeoutMs: 5_000, ca: inject('receiverCert') });
  afterAll(() => http.close());

  it.each([
    { answer: 'accepts it', responder: () => ({ status: 200, body: 'ok' }), row: { status: 'succeeded', failure_reason: null } },
    { answer: 'rejects it', responder: () => ({ status: 400, body: 'no' }), row: { status: 'failed', failure_reason: expect.stringContaining('HTTP 400') } },
  ])('sends an experience action its routing wrote in one attempt, naming its own run, and starts no delivery run when the receiver $answer', async ({ responder, row }) => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const endpoint = await newEndpoint(account, ['experience.action'], responder);
    try {
      await publishedExperience(account, experienceDefinition({ nodes: [{ id: 'hello', type: 'webhook', result: { step: 'hello' }, next: 'done' }, { id: 'done', type: 'exit' }] }));
      const signup = await receivedEvent(account, connection, { eventType: 'signup', clientUserId: 'u_at_once' });
      const { temporal, calls } = recordingTemporal();
      const deps = {
        orm,
        temporal,
        http,
        delivery: inject('delivery'),
        secrets: createSecretBox(inject('secretsKey')),
        metrics: createWorkerMetrics(new Registry()),
        logger: pino({ level: 'silent' }),
      } as Omit<ActivityDeps, 'push'> as ActivityDeps;
      const run = 'ingest-batch:ibt_activity_test';
      const activity = new MockActivityEnvironment({ workflowExecution: { workflowId: run, runId: randomUUID() } });
      await activity.run(() => createIngestActivities(deps).processInboundEvents({ eventIds: [signup] }));

      const deliveries = await query<{ status: string; attempt_count: number; workflow_id: string; failure_reason: string | null; started_at: Date | null }>(
        `select d.status, d.attempt_count, d.workflow_id, d.failure_reason, b.started_at
           from deliveries d join delivery_batches b on b.id = d.batch_id where d.endpoint_id = $1`,
        [endpoint.endpointId],
      );
      expect(deliveries).toEqual([{ ...row, attempt_count: 1, workflow_id: run, started_at: expect.any(Date) }]);
      expect(endpoint.receiver.requests).toHaveLength(1);
      // Settled, the batch is marked started, so no recovery starts a run for it; none was started.
      expect(calls.started).toEqual([]);
    } finally {
      await endpoint.receiver.close();
    }
  });
});
