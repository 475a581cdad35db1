import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';
import { createMessage, newAudience, pushesOf, scheduleSend, waitForSend } from '../support/campaigns.ts';
import { killGroup, startEmbeddedStack } from '../support/embedded-stack.ts';
import { ok } from '../support/http-assertions.ts';

// `npm start` with PUSH_PROVIDER=fake-fcm, black-box: the entry point as a user runs it (on the suite's Postgres and
// Temporal server, to start faster), its fake FCM scripted by DATA_DIR/fake-fcm.json before the start, and a send
// through its API whose failed, unregistered and retried pushes are counted as a real FCM's would be.

const scratchDirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) killGroup(child);
  await Promise.all(scratchDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('npm start with PUSH_PROVIDER=fake-fcm', () => {
  it('sends through the fake FCM, whose scripted failures are counted: unregistered, failed, retried, slow', { timeout: 240_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rp-fake-fcm-'));
    scratchDirs.push(dataDir);
    const script = {
      rules: [
        { tokens: 'gone-*', answer: 'unregistered' },
        { tokens: 'broken-*', answer: 'invalid' },
        { tokens: 'busy-*', answer: 'unavailable', times: 2 },
        { tokens: 'slow-*', delayMs: 500 },
      ],
    };
    await writeFile(join(dataDir, 'fake-fcm.json'), JSON.stringify(script));
    const env = { ...process.env, PUSH_PROVIDER: 'fake-fcm', TEMPORAL_NAMESPACE: inject('namespace'), TEMPORAL_TASK_QUEUE: `fake-fcm-${randomUUID()}`, SECRETS_KEY: inject('secretsKey') };
    const stack = await startEmbeddedStack(dataDir, env, { databaseUrl: inject('databaseUrl'), temporalAddress: inject('temporalAddress') });
    children.push(stack.child);
    expect(stack.output()).toMatch(new RegExp(`^ {2}Fake FCM\\s+https://127\\.0\\.0\\.1:\\d+, answering as ${join(dataDir, 'fake-fcm.json')} says$`, 'm'));

    // The send goes through npm start's API, so its run is on npm start's worker, which sends to the fake.
    const account = { ...(await newAccount()), baseUrl: stack.apiUrl };
    const names = ['ok', 'gone', 'broken', 'busy', 'slow'];
    const { segment, ids } = await newAudience(account, names.length, 'fake-fcm', (index) => ({ token: `${names[index]}-${account.appId}` }));
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    ok(await scheduleSend(account, message.id, { playTime: Date.now() + 1000 }));

    const send = await waitForSend(account, message.id, (state) => state.state === 'SENT', 120_000);
    expect(send).toMatchObject({ audience: 5, sent: 3, unregistered: 1, failed: 1 });
    const statusOf = new Map((await pushesOf(account, message.id)).map((push) => [push.deviceId, push.status]));
    const deviceOf = (name: string) => ids.get(`${name}-${account.appId}`);
    expect(Object.fromEntries(names.map((name) => [name, statusOf.get(deviceOf(name))]))).toEqual({
      ok: 'sent',
      gone: 'unregistered',
      broken: 'failed',
      busy: 'sent',
      slow: 'sent',
    });
    // The unregistered device is unsubscribed, as FCM's UNREGISTERED makes the service do.
    expect(ok(await call('GET', `/device/get?id=${deviceOf('gone')}`, { token: account.apiKey, baseUrl: stack.apiUrl }))).toMatchObject({ subscribed: false });
  });
});
