import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { controlsOutOfTabOrder, openConsoleBrowser, unlabelledControls, type ConsoleBrowser, type ConsolePage } from '../support/console-browser.ts';
import { newSegment, registerDevices } from '../support/devices.ts';
import { directEvent, newConnection, postSigned, waitForEvent } from '../support/ingest.ts';
import { startReceiver, type TestReceiver } from '../support/receiver.ts';

// The Audience and Settings pages in a real Chromium against the run's service: what they show equals what the API
// answers, and what their forms send is what the API then holds.

let browser: ConsoleBrowser;
let account: TestAccount;
let main: ConsolePage;
let receiver: TestReceiver;

beforeAll(async () => {
  [browser, account, receiver] = await Promise.all([openConsoleBrowser(import.meta.url), newAccount(), startReceiver()]);
  await registerDevices(account, [
    ...Array.from({ length: 4 }, (_, index) => ({ token: `aud-pro-${index}`, platform: 'ios', clientUserId: `pro-${index}`, attributes: { plan: 'pro' } })),
    { token: 'aud-free', platform: 'android', clientUserId: 'free-0', attributes: { plan: 'free' } },
  ]);
  main = await browser.signedInPage(account);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

const heading = (page: ConsolePage) => page.page.getByRole('heading', { level: 1 });

/**
 * Every control labelled and reachable by Tab. The page is opened afresh (Tab walks on from the last control used,
 * and the walk starts at the top) with every "Copy as curl" open, so their own controls count too.
 */
async function expectAccessible(page: ConsolePage) {
  const path = new URL(page.page.url()).pathname + new URL(page.page.url()).search;
  await page.goto(path);
  await heading(page).waitFor();
  await page.page.evaluate(`document.querySelectorAll('details.curl').forEach((details) => { details.open = true; })`);
  expect(await unlabelledControls(page.page), path).toEqual([]);
  expect(await controlsOutOfTabOrder(page.page), path).toEqual([]);
}

describe('the Audience pages', () => {
  it('list the app’s devices and segments, as the API does', async () => {
    const segment = await newSegment(account, { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] });
    await main.goto('/console/audience');
    expect(await heading(main).textContent()).toBe('Audience');
    const devices = main.page.getByRole('table', { name: /devices, newest first/ });
    await expect.poll(() => devices.getByRole('row').count()).toBe(6);
    const listed = await call('GET', `/device/list?appId=${account.appId}&limit=50`, { token: account.apiKey });
    expect(await devices.getByRole('rowheader').allTextContents()).toEqual(listed.body.items.map((device: { deviceId: string }) => device.deviceId));
    expect(await main.page.getByRole('link', { name: 'segment' }).getAttribute('href')).toBe(`/console/audience/segments/${segment.id}`);
    await main.screenshot('audience');
    await expectAccessible(main);
    expect(main.problems).toEqual([]);
  });

  it('show a segment’s live size and its sample, and count again as devices join', async () => {
    const segment = await newSegment(account, { all: [{ field: 'attributes.plan', op: 'eq', value: 'free' }] });
    await main.goto(`/console/audience/segments/${segment.id}`);
    const figure = main.page.locator('.figure');
    await expect.poll(() => figure.textContent()).toBe('1');
    const sample = await call('GET', `/filter/sample?id=${segment.id}&limit=10`, { token: account.apiKey });
    expect(await main.page.getByRole('table').getByRole('rowheader').allTextContents()).toEqual(sample.body.items.map((device: { deviceId: string }) => device.deviceId));
    await registerDevices(account, [{ token: 'aud-free-2', platform: 'web', attributes: { plan: 'free' } }]);
    // Read again every 5 s while open: the new device shows without a reload.
    await expect.poll(() => figure.textContent(), { timeout: 15_000 }).toBe('2');
    await main.screenshot('segment');
    await expectAccessible(main);
    expect(main.problems).toEqual([]);
  });

  it('show events held at ingest, and those refused, by state', async () => {
    const connection = await newConnection(account, { eventConfig: { createVisitors: false, eventTypes: ['order.completed'] } });
    const held = directEvent({ clientUserId: 'not-yet-known' });
    const ignored = directEvent({ clientUserId: 'not-yet-known', eventType: 'page.viewed' });
    expect((await postSigned(connection, held)).status).toBe(202);
    expect((await postSigned(connection, ignored)).status).toBe(202);
    await waitForEvent(account, held.messageId, 'HELD');
    await waitForEvent(account, ignored.messageId, 'IGNORED');

    await main.goto('/console/audience/events');
    expect(await heading(main).textContent()).toBe('Events at ingest');
    const rows = main.page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).getByRole('rowheader').textContent()).toBe('order.completed');
    expect(await rows.nth(1).getByRole('cell').first().textContent()).toBe('not-yet-known');
    await main.screenshot('events-held');

    await main.page.getByLabel('State').selectOption('IGNORED');
    await main.page.waitForURL('**/console/audience/events?status=IGNORED');
    await expect.poll(() => rows.nth(1).getByRole('rowheader').textContent()).toBe('page.viewed');
    expect(await rows.count()).toBe(2);
    await main.screenshot('events-ignored');
    await expectAccessible(main);
    expect(main.problems).toEqual([]);
  });
});

describe('the Settings page', () => {
  it('saves an app’s frequency cap, quiet hours and time zone, and shows the same request as curl', async () => {
    await main.goto('/console/settings');
    expect(await heading(main).textContent()).toBe('Settings');
    await main.page.getByLabel('Default time zone').selectOption('Europe/Berlin');
    await main.page.getByLabel('Limit the pushes a device gets').check();
    await main.page.getByLabel('At most (pushes)').fill('2');
    await main.page.getByLabel('in any window of (hours)').fill('12');
    await main.page.getByLabel('Keep campaign pushes out of these hours').check();
    await main.page.getByLabel('From').fill('21:30');
    await main.page.getByLabel('to', { exact: true }).fill('07:15');
    await main.page.getByLabel('A push due then is').selectOption('skip');
    const expected = { defaultTimezone: 'Europe/Berlin', frequencyCap: { max: 2, hours: 12 }, quietHours: { start: '21:30', end: '07:15', action: 'skip' } };

    const form = main.page.locator('form', { has: main.page.getByLabel('Default time zone') });
    await form.getByText('Copy as curl').click();
    expect(await form.locator('.curl pre').textContent()).toBe(
      `curl -s -X PATCH "$API/accounts/${account.accountId}/apps/${account.appId}" \\\n  -H "Authorization: Bearer $KEY" \\\n  -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify(expected)}'`,
    );
    await form.getByRole('button', { name: /^Save / }).click();
    await form.getByText('Saved.').waitFor();
    const app = await call('GET', `/accounts/${account.accountId}/apps/${account.appId}`, { token: account.apiKey });
    expect(app.body).toMatchObject(expected);
    await main.screenshot('settings');
    expect(main.problems).toEqual([]);
  });

  it('adds an endpoint and a connection, and lists them as the API does', async () => {
    await main.goto('/console/settings');
    await main.page.getByLabel('URL (https)').fill(receiver.url);
    await main.page.getByLabel('Description').fill('Our CRM');
    await main.page.getByRole('checkbox', { name: 'job.accepted', exact: true }).check();
    await main.page.getByRole('button', { name: 'Add the endpoint' }).click();
    await main.page.getByText(/signing secret, shown this once/).waitFor();
    const endpoints = await call('GET', `/accounts/${account.accountId}/endpoints`, { token: account.apiKey });
    expect(endpoints.body.endpoints).toMatchObject([{ url: receiver.url, eventTypes: ['job.accepted'], description: 'Our CRM' }]);
    await expect.poll(() => main.page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('rowheader').allTextContents()).toEqual([receiver.url]);

    await main.page.getByLabel('Provider').selectOption('webhook');
    await main.page.getByLabel('Label').fill('Shop events');
    await main.page.getByRole('button', { name: 'Add the connection' }).click();
    await main.page.getByText('Inbound URL', { exact: true }).waitFor();
    const connections = await call('GET', `/accounts/${account.accountId}/connections`, { token: account.apiKey });
    const connection = connections.body.connections.find((item: { label: string }) => item.label === 'Shop events');
    expect(connection).toMatchObject({ provider: 'webhook', status: 'active' });
    expect(await main.page.getByText(connection.inboundUrl).count()).toBe(1);
    await main.screenshot('settings-added');
    await expectAccessible(main);
    expect(main.problems).toEqual([]);
  });
});
