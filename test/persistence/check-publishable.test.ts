import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { checkPublishable } from '../../src/domain/experiences/check-publishable.ts';
import { experienceDefinitionSchema, type ExperienceDefinition } from '../../src/domain/experiences/definition-schema.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { sampleDefinition } from '../support/experiences.ts';
import { newConnection } from '../support/ingest.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';

let orm: Orm;
let account: TestAccount;
let other: TestAccount;
const endpoints: EndpointFixture[] = [];

beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
  [account, other] = await Promise.all([newAccount(), newAccount()]);
});
afterAll(async () => {
  await Promise.all(endpoints.map((endpoint) => endpoint.receiver.close()));
  await orm?.close();
});

async function endpointOf(owner: TestAccount): Promise<string> {
  const endpoint = await newEndpoint(owner);
  endpoints.push(endpoint);
  return endpoint.endpointId;
}

async function connectionOf(owner: TestAccount, provider: string, outboundCredential?: string): Promise<string> {
  const { connectionId } = await newConnection(owner, { provider });
  if (outboundCredential) {
    const patched = await call('PATCH', `/accounts/${owner.accountId}/connections/${connectionId}`, { token: owner.apiKey, body: { outboundCredential } });
    expect(patched.status).toBe(200);
  }
  return connectionId;
}

/** The sample with the given ids in its provider node (nodes.3) and its second webhook node (nodes.6). */
const definitionWith = (ids: { connectionId: string; endpointId: string }): ExperienceDefinition => experienceDefinitionSchema.parse(sampleDefinition(ids));

const check = (definition: ExperienceDefinition) => checkPublishable(orm.em.fork(), account.accountId, definition);

describe('checkPublishable', () => {
  it('passes an endpoint and a Segment or RudderStack connection with an outbound credential of the account', async () => {
    const endpointId = await endpointOf(account);
    for (const provider of ['segment', 'rudderstack']) {
      const connectionId = await connectionOf(account, provider, 'write-key');
      expect(await check(definitionWith({ connectionId, endpointId }))).toEqual([]);
    }
  });

  it('passes a webhook node without endpointId and a definition that names nothing', async () => {
    const definition = experienceDefinitionSchema.parse({ name: 'Bare', trigger: { eventType: 'signup' }, start: 'hook', nodes: [
      { id: 'hook', type: 'webhook', next: 'end' },
      { id: 'end', type: 'exit' },
    ] });
    expect(await check(definition)).toEqual([]);
  });

  it('refuses what is not the account’s, is deleted, cannot be called or has no credential', async () => {
    const good = { connectionId: await connectionOf(account, 'segment', 'write-key'), endpointId: await endpointOf(account) };
    const deletedEndpoint = await endpointOf(account);
    expect((await call('DELETE', `/accounts/${account.accountId}/endpoints/${deletedEndpoint}`, { token: account.apiKey })).status).toBe(204);
    const deletedConnection = await connectionOf(account, 'segment', 'write-key');
    expect((await call('DELETE', `/accounts/${account.accountId}/connections/${deletedConnection}`, { token: account.apiKey })).status).toBe(204);

    const cases: [string, { connectionId?: string; endpointId?: string }, { path: string; message: string }][] = [
      ['another account’s endpoint', { endpointId: await endpointOf(other) }, { path: 'nodes.6.endpointId', message: 'names no endpoint of this account: "%s"' }],
      ['a deleted endpoint', { endpointId: deletedEndpoint }, { path: 'nodes.6.endpointId', message: 'names no endpoint of this account: "%s"' }],
      ['an unknown endpoint', { endpointId: 'ep_doesNotExist' }, { path: 'nodes.6.endpointId', message: 'names no endpoint of this account: "%s"' }],
      ['another account’s connection', { connectionId: await connectionOf(other, 'segment', 'write-key') }, { path: 'nodes.3.connectionId', message: 'names no connection of this account: "%s"' }],
      ['a deleted connection', { connectionId: deletedConnection }, { path: 'nodes.3.connectionId', message: 'names no connection of this account: "%s"' }],
      ['a direct connection', { connectionId: await connectionOf(account, 'direct', 'write-key') }, { path: 'nodes.3.connectionId', message: 'must be a segment or rudderstack connection; "%s" is a direct connection' }],
      ['a webhook connection', { connectionId: await connectionOf(account, 'webhook') }, { path: 'nodes.3.connectionId', message: 'must be a segment or rudderstack connection; "%s" is a webhook connection' }],
      ['a connection without outbound credential', { connectionId: await connectionOf(account, 'rudderstack') }, { path: 'nodes.3.connectionId', message: 'connection "%s" has no outbound credential: set outboundCredential on it first' }],
    ];
    for (const [, ids, detail] of cases) {
      const id = ids.connectionId ?? ids.endpointId!;
      expect(await check(definitionWith({ ...good, ...ids }))).toEqual([{ ...detail, message: detail.message.replace('%s', id) }]);
    }
  });

  it('adds the graph problems, and looks each kind up once however many nodes name it', async () => {
    const endpointId = await endpointOf(account);
    const withCredential = await connectionOf(account, 'segment', 'write-key');
    const withoutCredential = await connectionOf(account, 'segment');
    const definition = experienceDefinitionSchema.parse({
      name: 'Many',
      trigger: { eventType: 'signup' },
      start: 'a',
      nodes: [
        { id: 'a', type: 'webhook', endpointId, next: 'b' },
        { id: 'b', type: 'webhook', endpointId: 'ep_unknown', next: 'c' },
        { id: 'c', type: 'provider', connectionId: withCredential, call: 'identify', next: 'd' },
        { id: 'd', type: 'provider', connectionId: withoutCredential, call: 'track', event: 'E', next: 'e' },
        { id: 'e', type: 'provider', connectionId: withoutCredential, call: 'track', event: 'F', next: 'missing' },
        { id: 'f', type: 'exit' },
      ],
    });
    const em = orm.em.fork();
    const find = vi.spyOn(em, 'find');
    expect(await checkPublishable(em, account.accountId, definition)).toEqual([
      { path: 'nodes.4.next', message: 'names no node: "missing"' },
      { path: 'nodes.5', message: '"f" cannot be reached from start "a"' },
      { path: 'nodes.1.endpointId', message: 'names no endpoint of this account: "ep_unknown"' },
      { path: 'nodes.3.connectionId', message: `connection "${withoutCredential}" has no outbound credential: set outboundCredential on it first` },
      { path: 'nodes.4.connectionId', message: `connection "${withoutCredential}" has no outbound credential: set outboundCredential on it first` },
    ]);
    expect(find).toHaveBeenCalledTimes(2);
  });
});
