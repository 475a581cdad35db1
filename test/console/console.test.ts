import { createServer, type Server } from 'node:http';
import type { Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount, sampleMessage, type TestAccount } from '../support/api.ts';
import { controlsOutOfTabOrder, keyboardWalkTimeoutMs, openConsoleBrowser, unlabelledControls, type ConsoleBrowser, type ConsolePage } from '../support/console-browser.ts';
import { newJob } from '../support/jobs.ts';
import { firstLoadBudgetBytes, gzippedBytes } from './first-load.ts';

// The console in a real Chromium against the run's service: sign-in, the shell, the Messages pages, the artist's
// page, and the safety rules as a browser meets them. One browser for the file; one signed-in page for the pages.

let browser: ConsoleBrowser;
let account: TestAccount;
let main: ConsolePage;
const messages: Record<'draft' | 'ready', { id: string; title: string }> = {} as never;

async function createMessage(body: Record<string, unknown>): Promise<{ id: string; title: string }> {
  const created = await call('POST', '/notification/create', { token: account.apiKey, body: { ...sampleMessage(account.appId), ...body } });
  expect(created.status).toBe(201);
  return { id: created.body.id, title: created.body.title };
}

const sessionCookie = async (page: ConsolePage) => (await page.context.cookies()).find((cookie) => cookie.name === 'richpush_console');

beforeAll(async () => {
  browser = await openConsoleBrowser(import.meta.url);
  account = await newAccount();
  messages.draft = await createMessage({ title: 'Weekend sale, a rich push still in draft' });
  messages.ready = await createMessage({ title: 'Plain push, ready to send', type: 'PUSH' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('signing in', () => {
  it('takes the key once: the session is an httpOnly, SameSite=Strict cookie, and the key is in no storage', async () => {
    const signedOut = await browser.signedOutPage(account);
    await signedOut.screenshot('sign-in');
    main = await browser.signedInPage(account);
    // The first page's list loaded: the next test's navigation must not abort it (a failed request) on a slow machine.
    await main.page.getByRole('table').waitFor();
    const cookie = await sessionCookie(main);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    const stored = await main.page.evaluate<string>(`JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie, location.href])`);
    expect(stored).not.toContain(account.apiKey);
    expect(stored).not.toContain(cookie!.value);
    expect(await main.page.getByLabel('API key').count()).toBe(0);
    expect(signedOut.problems).toEqual([]);
  });
});

describe('the Messages pages', () => {
  it('list the account’s messages, newest first, and by state', async () => {
    await main.goto('/console');
    await main.page.waitForURL('**/console/messages');
    const rows = main.page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(3);
    expect(await main.page.getByRole('heading', { level: 1 }).textContent()).toBe('Messages');
    expect(await rows.nth(1).getByRole('rowheader').textContent()).toBe(messages.ready.title);
    expect(await rows.nth(2).getByRole('rowheader').textContent()).toBe(messages.draft.title);
    await main.screenshot('messages');

    await main.page.getByLabel('State').selectOption('DRAFT');
    await main.page.waitForURL('**/console/messages?status=DRAFT');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).getByRole('rowheader').textContent()).toBe(messages.draft.title);
    await main.page.getByText('Copy as curl').click();
    expect(await main.page.locator('.curl pre').textContent()).toBe('curl -s "$API/notification/list?status=DRAFT" \\\n  -H "Authorization: Bearer $KEY"');
    await main.screenshot('messages-draft');
    expect(main.problems).toEqual([]);
  });

  it('show a message’s fields and its send’s counts', async () => {
    await main.goto('/console/messages');
    await main.page.getByRole('link', { name: messages.draft.title }).click();
    await main.page.waitForURL(`**/console/messages/${messages.draft.id}`);
    expect(await main.page.getByRole('heading', { level: 1 }).textContent()).toBe(messages.draft.title);
    const fields = main.page.locator('dl.fields');
    expect(await fields.getByText('Tap to hear the announcement').count()).toBe(1);
    const sent = main.page.getByRole('row', { name: /^Sent/ });
    expect(await sent.getByRole('cell').first().textContent()).toBe('0');
    expect(await main.page.getByText('State UNSCHEDULED').count()).toBe(1);
    await main.screenshot('message');
    expect(main.problems).toEqual([]);
  });

  it('label every control and reach each one by keyboard', { timeout: keyboardWalkTimeoutMs }, async () => {
    for (const path of ['/console/messages', `/console/messages/${messages.draft.id}`]) {
      await main.goto(path);
      await main.page.getByRole('heading', { level: 1 }).waitFor();
      for (const summary of await main.page.getByText('Copy as curl').all()) await summary.click();
      expect(await unlabelledControls(main.page), path).toEqual([]);
      expect(await controlsOutOfTabOrder(main.page), path).toEqual([]);
    }
    expect(main.problems).toEqual([]);
  });
});

describe('the shell', () => {
  it('links the seven sections, the current one marked', async () => {
    await main.goto('/console/messages');
    const nav = main.page.getByRole('navigation', { name: 'Sections' });
    const names = await nav.getByRole('link').allTextContents();
    expect(names).toEqual(['Messages', 'A/B tests', 'Flows', 'Deliveries', 'Recording jobs', 'Audience', 'Settings']);
    for (const name of names.slice(1)) {
      await nav.getByRole('link', { name }).click();
      await main.page.getByRole('heading', { level: 1, name }).waitFor();
      expect(await nav.getByRole('link', { name }).getAttribute('aria-current')).toBe('page');
    }
    await main.screenshot('settings-placeholder');
    expect(main.problems).toEqual([]);
  });

  it('loads at most 300 KB of gzipped JavaScript for the first page', async () => {
    const fresh = await browser.signedInPage(account);
    await fresh.page.getByRole('table').waitFor();
    const sizes = await Promise.all(fresh.scripts.map(async (script) => gzippedBytes(await script.body)));
    const total = sizes.reduce((sum, size) => sum + size, 0);
    expect(sizes.length).toBeGreaterThanOrEqual(2); // the entry and the page's own chunk
    expect(total).toBeLessThanOrEqual(firstLoadBudgetBytes);
    expect(fresh.problems).toEqual([]);
    await fresh.context.close();
  });
});

describe('the artist’s page', () => {
  it('opens from the link with no sign-in and shows the job’s script and due date', async () => {
    const job = await newJob(account, { title: 'Summer voice-over', script: 'Sun is out,\nso are the deals.' });
    const executed = await call('POST', `/job/executeJob?id=${job.id}`, { token: account.apiKey });
    expect(executed.status).toBe(200);
    const link = new URL(executed.body.artistLink.url as string);
    expect(link.origin).toBe(new URL(inject('apiUrl')).origin);
    const artist = await browser.signedOutPage();
    await artist.goto(link.pathname);
    expect(await artist.page.getByRole('heading', { level: 1 }).textContent()).toBe('Summer voice-over');
    expect(await artist.page.locator('.script').textContent()).toBe('Sun is out,\nso are the deals.');
    expect(await artist.page.getByText(/^Due$/).count()).toBe(1);
    expect(await artist.page.getByRole('navigation').count()).toBe(0);
    await artist.screenshot('artist');
    expect(artist.problems).toEqual([]);
    await artist.context.close();
  });

  it('says so, in the artist’s words, when the token is no link', async () => {
    const artist = await browser.signedOutPage();
    const token = `art_${'A'.repeat(43)}`;
    await artist.goto(`/artist/${token}`);
    expect(await artist.page.getByRole('heading', { level: 1 }).textContent()).toBe('This link does not open');
    expect(await artist.page.getByRole('alert').textContent()).toMatch(/does not open any recording job/);
    // The one failed request is the API's own 404 for the link, which the page shows.
    expect(artist.problems.filter((problem) => !problem.includes(`/artist/${token}/job`) && !problem.includes('404 (Not Found)'))).toEqual([]);
    await artist.context.close();
  });
});

/** A page on another origin of the same site (another port of 127.0.0.1), or another site (localhost), posting a form. */
async function attackerServer(html: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, server };
}

/**
 * Opens the attacker's page, whose script posts its form to `target` as soon as it loads, and answers the API's
 * response to that post once the post's navigation is over. That navigation may commit after its response has
 * arrived, and a `goto` started before would be interrupted by it. It ends on the answer's page, or, for a 204 (no
 * page), cut off by the browser, the attacker's page left showing.
 */
async function postedFrom(page: Page, attackerUrl: string, target: string): Promise<Response> {
  let ended!: () => void;
  const navigationEnded = new Promise<void>((resolve) => (ended = resolve));
  const onEnd = (request: Request) => void (request.isNavigationRequest() && request.url() === target && ended());
  page.on('requestfinished', onEnd).on('requestfailed', onEnd);
  try {
    const answered = page.waitForResponse(target);
    await page.goto(attackerUrl, { waitUntil: 'commit' });
    const response = await answered;
    await navigationEnded;
    if (response.status() !== 204) await page.waitForURL(target);
    return response;
  } finally {
    page.off('requestfinished', onEnd).off('requestfailed', onEnd);
  }
}

describe('safety in the browser', () => {
  it('refuses a form another origin posts with the cookie (403 csrf_refused), and another site’s gets no cookie', async () => {
    const victim = await browser.signedInPage(account);
    const api = inject('apiUrl');
    const form = (action: string, body: string) => `<form method="post" action="${api}${action}" enctype="text/plain"><input name='${body}' value=''></form><script>document.forms[0].submit()</script>`;
    for (const [action, body] of [
      ['/console/logout', 'x'],
      ['/notification/create', `{"appId":"${account.appId}","title":"forged","x":"`],
    ] as const) {
      const attacker = await attackerServer(form(action, body));
      try {
        const response = await postedFrom(victim.page, attacker.url, `${api}${action}`);
        expect(response.status(), action).toBe(403);
        expect((await response.json()).error.code).toBe('csrf_refused');
        // Another site (localhost is not 127.0.0.1's site): SameSite=Strict keeps the cookie home.
        const crossSite = await postedFrom(victim.page, attacker.url.replace('127.0.0.1', 'localhost'), `${api}${action}`);
        expect((await crossSite.request().allHeaders()).cookie).toBeUndefined();
      } finally {
        attacker.server.close();
      }
    }
    const list = await call('GET', '/notification/list', { token: account.apiKey });
    expect(list.body.items.map((item: { title: string }) => item.title)).not.toContain('forged');
    expect(await victim.page.context().cookies()).toHaveLength(1);
    await victim.goto('/console/messages');
    await victim.page.getByRole('table').waitFor();
    await victim.context.close();
  });

  it('refuses a change the page makes without X-Console: 1, and carries it with', async () => {
    const page = await browser.signedInPage(account);
    const post = (headers: Record<string, string>) =>
      page.page.evaluate<{ status: number; code?: string }>(`fetch('/notification/create', {
        method: 'POST',
        headers: ${JSON.stringify({ 'content-type': 'application/json', ...headers })},
        body: JSON.stringify({ appId: ${JSON.stringify(account.appId)}, title: 'from the page' }),
      }).then(async (response) => ({ status: response.status, code: (await response.json()).error?.code }))`);
    expect(await post({})).toEqual({ status: 403, code: 'csrf_refused' });
    expect(await post({ 'X-Console': '1' })).toEqual({ status: 201 });
    await page.context.close();
  });

  it('signs out: the page shows the sign-in form, and the old cookie answers 401', async () => {
    const page = await browser.signedInPage(account);
    const cookie = (await sessionCookie(page))!;
    // The first page's read ends first: signing out under it would make it a 401 of the test's making.
    await page.page.getByRole('table').waitFor();
    await page.page.getByRole('button', { name: 'Sign out' }).click();
    await page.page.getByLabel('API key').waitFor();
    const after = await call('GET', '/notification/list', { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect(after.status).toBe(401);
    expect(await sessionCookie(page)).toBeUndefined();
    expect(page.problems).toEqual([]);
    await page.context.close();
  });
});
