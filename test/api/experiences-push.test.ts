import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';
import { createMessage, pushesOf, startFcmSendPath, type FcmSendPath } from '../support/campaigns.ts';
import { registerDevices } from '../support/devices.ts';
import { experienceDefinition, publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned, type ConnectionFixture } from '../support/ingest.ts';

// An experience's push node through the running service: an event starts a run whose push node sends a message to the
// person's devices, and the run's path records the outcome. The sending tests post their events to the API instance
// of a send path to a fake FCM (an event is relayed on the task queue of the API that accepted it, so its ingest
// batch and the run it starts are on that path's worker, PUSH_PROVIDER=fcm): the fake tells what each device got.
// Publishing checks the node's message.

const pushExperience = (notificationId: string, more: Record<string, unknown> = {}) =>
  experienceDefinition({ nodes: [{ id: 'nudge', type: 'push', notificationId, next: 'done' }, { id: 'done', type: 'exit' }], ...more });

describe('an experience push node, sending to FCM', () => {
  let path: FcmSendPath;
  beforeAll(async () => {
    path = await startFcmSendPath({ fake: { keepBodies: true } });
  });
  afterAll(() => path?.stop());
  /** Posts a direct event to the path's API instance. */
  const post = (connection: ConnectionFixture, event: Record<string, unknown>) => postSigned(connection, directEvent(event), { baseUrl: path.apiUrl });

  it('sends the message to each subscribed device of an identified person, and records no device for an anonymous one', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const devices = await registerDevices(account, [
      { token: 'push-node-a', platform: 'ios', clientUserId: 'u_push_1' },
      { token: 'push-node-b', platform: 'android', clientUserId: 'u_push_1' },
      { token: 'push-node-c', platform: 'ios', clientUserId: 'u_push_1', subscribed: false },
      { token: 'push-node-d', platform: 'ios', clientUserId: 'someone-else' },
    ]);
    const message = await createMessage(account, { type: 'PUSH' });
    const experience = await publishedExperience(account, pushExperience(message.id));

    expect((await post(connection, { eventType: 'signup', clientUserId: 'u_push_1' })).status).toBe(202);
    expect((await post(connection, { eventType: 'signup' })).status).toBe(202);
    const runs = await waitForRuns(account, experience.experienceId, (all) => all.length === 2 && all.every((run) => run.status === 'completed'), 30_000);
    const identified = runs.find((run) => run.clientUserId === 'u_push_1')!;
    const anonymous = runs.find((run) => run.clientUserId === null)!;
    expect(identified.path[0]).toMatchObject({ nodeId: 'nudge', type: 'push', outcome: 'sent to 2 devices' });
    expect(anonymous.path[0]).toMatchObject({ nodeId: 'nudge', type: 'push', outcome: 'no device' });

    const pushes = await pushesOf(account, message.id);
    expect(pushes.map((push) => push.deviceId).sort()).toEqual([devices.get('push-node-a'), devices.get('push-node-b')].sort());
    expect(pushes.every((push) => push.source === 'flow' && push.status === 'sent')).toBe(true);
    // At FCM: each subscribed device of the person once, carrying its push's send id; nobody else's device.
    const sendIdOfDevice = new Map(pushes.map((push) => [push.deviceId, push.sendId]));
    for (const token of ['push-node-a', 'push-node-b']) {
      expect(path.fake.countFor(token)).toBe(1);
      const [received] = path.fake.bodies().filter((send) => send.token === token);
      expect(received!.message.data).toMatchObject({ notificationId: message.id, sendId: sendIdOfDevice.get(devices.get(token)) });
    }
    for (const token of ['push-node-c', 'push-node-d']) expect(path.fake.countFor(token)).toBe(0);
  });

  it('keeps the app’s frequency cap: a person already capped is recorded capped', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    expect((await call('PATCH', `/accounts/${account.accountId}/apps/${account.appId}`, { token: account.apiKey, body: { frequencyCap: { max: 1, hours: 24 } } })).status).toBe(200);
    await registerDevices(account, [{ token: 'push-cap-a', platform: 'ios', clientUserId: 'u_cap' }]);
    const message = await createMessage(account, { type: 'PUSH' });
    const experience = await publishedExperience(account, pushExperience(message.id, { entry: { reentry: 'always' } }));
    expect((await post(connection, { eventType: 'signup', clientUserId: 'u_cap' })).status).toBe(202);
    await waitForRuns(account, experience.experienceId, (all) => all.length === 1 && all[0].status === 'completed', 30_000);
    expect((await post(connection, { eventType: 'signup', clientUserId: 'u_cap' })).status).toBe(202);
    const runs = await waitForRuns(account, experience.experienceId, (all) => all.length === 2 && all.every((run) => run.status === 'completed'), 30_000);
    expect(runs.map((run) => run.path[0].outcome).sort()).toEqual(['capped', 'sent to 1 device']);
    expect(path.fake.countFor('push-cap-a')).toBe(1);
  });
});

describe('an experience push node at publish', () => {

  it('is refused at publish when its message is unknown, another account’s, or not READY', async () => {
    const account = await newAccount();
    const other = await newAccount();
    const draft = await createMessage(account);
    const foreign = await createMessage(other, { type: 'PUSH' });
    for (const [notificationId, message] of [
      ['7b0c1d52-6a43-4f4e-9a42-3f1d7e0b5c11', 'names no message of an app of this account: "7b0c1d52-6a43-4f4e-9a42-3f1d7e0b5c11"'],
      [foreign.id, `names no message of an app of this account: "${foreign.id}"`],
      [draft.id, `message "${draft.id}" is ${draft.status}: a push node sends a READY message`],
    ]) {
      const created = await call('POST', `/accounts/${account.accountId}/experiences`, { token: account.apiKey, body: { definition: pushExperience(notificationId) } });
      expect(created.status).toBe(201);
      const published = await call('POST', `/accounts/${account.accountId}/experiences/${created.body.experienceId}/publish`, { token: account.apiKey });
      expect(published.status).toBe(400);
      expect(published.body.error.details).toEqual([{ path: 'definition.nodes.0.notificationId', message }]);
    }
    const invalid = await call('POST', `/accounts/${account.accountId}/experiences`, { token: account.apiKey, body: { definition: pushExperience('not-a-uuid') } });
    expect(invalid.status).toBe(400);
  });
});
