import { call, sampleMessage, type TestAccount } from './api.ts';
import { newSegment, registerDevices } from './devices.ts';
import { ok } from './http-assertions.ts';
import { until } from './wait.ts';

// Helpers for the campaign send tests: an audience, a message to send, and reading the message's send.

const as = (account: TestAccount) => ({ token: account.apiKey });

/** `count` devices tagged `group = <group>` and the segment of them; answers the segment and the device ids by token. */
export async function newAudience(account: TestAccount, count: number, group = 'campaign') {
  const devices = Array.from({ length: count }, (_, index) => ({ token: `${group}-${index}-${account.appId.slice(0, 8)}`, platform: index % 2 ? 'ios' : 'android', attributes: { group } }));
  const ids = await registerDevices(account, devices);
  const segment = await newSegment(account, { all: [{ field: 'attributes.group', op: 'eq', value: group }] });
  return { segment, ids, tokens: devices.map((device) => device.token) };
}

/** A message created through the API: the spec's sample with these fields changed. */
export async function createMessage(account: TestAccount, fields: Record<string, unknown> = {}): Promise<any> {
  return ok(await call('POST', '/notification/create', { ...as(account), body: { ...sampleMessage(account.appId), ...fields } }), 201);
}

export const scheduleSend = (account: TestAccount, id: string, body: Record<string, unknown> = {}) =>
  call('POST', `/notification/schedule?id=${id}&appId=${account.appId}`, { ...as(account), body });

export const cancelSend = (account: TestAccount, id: string) => call('POST', `/notification/cancel?id=${id}&appId=${account.appId}`, as(account));

export const getMessage = async (account: TestAccount, id: string) => ok(await call('GET', `/notification/get?id=${id}`, as(account)));

/** Reads the message until its send matches. */
export const waitForSend = (account: TestAccount, id: string, predicate: (send: any) => boolean, timeoutMs = 60_000): Promise<any> =>
  until(`the send of message ${id} to match`, async () => (await getMessage(account, id)).send, predicate, { timeoutMs, intervalMs: 200 });

/** Every push of the message, all pages. */
export async function pushesOf(account: TestAccount, notificationId: string, filter = ''): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = ok(await call('GET', `/push/sends?notificationId=${notificationId}&limit=100${filter}${cursor ? `&cursor=${cursor}` : ''}`, as(account)));
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}
