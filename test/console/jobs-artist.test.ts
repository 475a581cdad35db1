import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { sineWav } from '../support/audio.ts';
import { controlsOutOfTabOrder, fakeMicrophoneFlags, keyboardWalkTimeoutMs, openConsoleBrowser, unlabelledControls, type ConsoleBrowser, type ConsolePage } from '../support/console-browser.ts';
import { readyTake } from '../support/files.ts';
import { newJob } from '../support/jobs.ts';

// The Recording jobs pages and the artist's page in a real Chromium against the run's service: the board by state
// with its due dates, a job's takes with players, select and accept from the page; what the pages show equals what
// the API answers, and what they do is what the API then holds.

let browser: ConsoleBrowser;
let account: TestAccount;
let main: ConsolePage;

const hour = 3_600_000;

beforeAll(async () => {
  [browser, account] = await Promise.all([openConsoleBrowser(import.meta.url, fakeMicrophoneFlags), newAccount()]);
  main = await browser.signedInPage(account);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

const heading = (page: ConsolePage) => page.page.getByRole('heading', { level: 1 });
const column = (page: ConsolePage, name: string) => page.page.getByRole('region', { name: new RegExp(`^${name}`) });
const getJob = async (id: string) => (await call('GET', `/job/get?id=${id}`, { token: account.apiKey })).body;

/** Every control labelled and reachable by Tab, on the page opened afresh with every "Copy as curl" open. */
async function expectAccessible(page: ConsolePage) {
  const path = new URL(page.page.url()).pathname;
  await page.goto(path);
  await heading(page).waitFor();
  await page.page.evaluate(`document.querySelectorAll('details.curl').forEach((details) => { details.open = true; })`);
  expect(await unlabelledControls(page.page), path).toEqual([]);
  expect(await controlsOutOfTabOrder(page.page), path).toEqual([]);
}

describe('the Recording jobs board', () => {
  it('shows each job in its state’s column with its artist and due dates, and marks the overdue', async () => {
    const late = await newJob(account, { title: 'Late voice-over', artist: 'late@example.com', dueDate: Date.now() - hour, artistDueDate: Date.now() - 2 * hour });
    const onTime = await newJob(account, { title: 'On-time voice-over', artist: 'ontime@example.com' });
    expect((await call('POST', `/job/executeJob?id=${onTime.id}`, { token: account.apiKey })).status).toBe(200);

    await main.goto('/console/jobs');
    expect(await heading(main).textContent()).toBe('Recording jobs');
    const created = column(main, 'Created');
    const assigned = column(main, 'With the artist');
    await created.getByRole('link', { name: late.title }).waitFor();
    await assigned.getByRole('link', { name: onTime.title }).waitFor();
    const lateCard = created.getByRole('listitem').filter({ hasText: late.title });
    expect(await lateCard.getByText('Overdue', { exact: true }).count()).toBe(1);
    expect(await lateCard.getByText('late@example.com').count()).toBe(1);
    const onTimeCard = assigned.getByRole('listitem').filter({ hasText: onTime.title });
    expect(await onTimeCard.getByText(/Overdue/).count()).toBe(0);
    expect(await onTimeCard.getByText('ontime@example.com').count()).toBe(1);
    // The board lists what GET /job/list answers for each state.
    const listed = await call('GET', '/job/list?status=CREATED&limit=100', { token: account.apiKey });
    expect(await created.getByRole('link').allTextContents()).toEqual(listed.body.items.map((job: { title: string }) => job.title));
    await main.screenshot('jobs-board');
    await expectAccessible(main);
    expect(main.problems).toEqual([]);
  });
});

describe('a job’s page', () => {
  it('plays the job’s takes, selects one and accepts it, as the API then holds', async () => {
    const job = await newJob(account, { title: 'Take selection' });
    expect((await call('POST', `/job/executeJob?id=${job.id}`, { token: account.apiKey })).status).toBe(200);
    const take = await readyTake(account, job.id);

    await main.goto('/console/jobs');
    await column(main, 'Takes in').getByRole('link', { name: job.title }).click();
    await main.page.waitForURL(`**/console/jobs/${job.id}`);
    expect(await heading(main).textContent()).toBe(job.title);
    const files = (await call('GET', `/job/files?id=${job.id}`, { token: account.apiKey })).body.items;
    const row = main.page.getByRole('row', { name: new RegExp(files[0].fileName ?? take.fileId) });
    expect(await row.getByRole('cell').first().textContent()).toMatch(/^ready, 0:01\.[45]$/);
    expect(await row.locator('audio').getAttribute('src')).toBe(files[0].url);
    await main.screenshot('job-takes');

    await row.getByRole('button', { name: /^Select / }).click();
    await expect.poll(async () => (await getJob(job.id)).status).toBe('SELECTED');
    expect((await getJob(job.id)).selectedFileId).toBe(take.fileId);
    await expect.poll(() => row.getByRole('cell').first().textContent()).toBe('selected');
    await main.page.getByRole('button', { name: 'Accept the selected take' }).click();
    await expect.poll(async () => (await getJob(job.id)).status).toBe('ACCEPTED');
    await main.page.getByText(/^Accepted: the message/).waitFor();
    const message = (await call('GET', `/notification/get?id=${job.notificationId}`, { token: account.apiKey })).body;
    expect(message.status).toBe('READY');
    expect(message.recording.fileId).toBe(take.fileId);
    await main.screenshot('job-accepted');
    expect(main.problems).toEqual([]);
  });

  it('labels every control and player, and reaches each control by keyboard', { timeout: keyboardWalkTimeoutMs }, async () => {
    const job = await newJob(account, { title: 'Keyboard check' });
    expect((await call('POST', `/job/executeJob?id=${job.id}`, { token: account.apiKey })).status).toBe(200);
    await readyTake(account, job.id);
    await main.goto(`/console/jobs/${job.id}`);
    await main.page.getByRole('button', { name: /^Select / }).waitFor();
    await expectAccessible(main);
    const players = await main.page.locator('audio').all();
    expect(players).toHaveLength(1);
    for (const player of players) expect(await player.getAttribute('aria-label')).toMatch(/^Play .+/);
    expect(main.problems).toEqual([]);
  });
});

/** The artist's takes as their link's API answers them. */
const artistTakes = async (token: string) => (await call('GET', `/artist/${token}/takes`)).body.items as Array<{ fileId: string; fileName: string; status: string }>;

describe('the artist’s page', () => {
  it('uploads a WAV and records a take in the browser; the account selects and accepts the upload on the board', async () => {
    const job = await newJob(account, { title: 'Autumn voice-over', artist: 'voice@example.com' });
    const executed = await call('POST', `/job/executeJob?id=${job.id}`, { token: account.apiKey });
    const link = new URL(executed.body.artistLink.url as string);
    const token = link.pathname.split('/').at(-1)!;
    const artist = await browser.signedOutPage();
    await artist.goto(link.pathname);
    expect(await heading(artist).textContent()).toBe('Autumn voice-over');

    // A file: 2 s of a sine the test writes, through the page's file field.
    await artist.page.getByLabel('Audio file').setInputFiles({ name: 'autumn-take-1.wav', mimeType: 'audio/wav', buffer: sineWav({ seconds: 2, peakDbfs: -12 }) });
    await artist.page.getByRole('button', { name: 'Upload' }).click();
    const uploaded = artist.page.getByRole('row', { name: /^autumn-take-1\.wav/ });
    await expect.poll(() => uploaded.getByRole('cell').nth(1).textContent(), { timeout: 60_000 }).toMatch(/^ready, 0:0[12]\.\d$/);

    // Recorded: Chromium's fake microphone, for about 2 s of real time (a recording takes the time it records).
    await artist.page.getByRole('button', { name: 'Record' }).click();
    await artist.page.getByText('Recording… press Stop when done.').waitFor();
    await artist.page.waitForTimeout(2_000);
    await artist.page.getByRole('button', { name: 'Stop and upload' }).click();
    const recorded = artist.page.getByRole('row', { name: /^recording-.+\.wav/ });
    await expect.poll(() => recorded.getByRole('cell').nth(1).textContent(), { timeout: 60_000 }).toMatch(/^ready, 0:0\d\.\d$/);
    const takes = await artistTakes(token);
    expect(takes.map((take) => [take.fileName.replace(/^recording-.+\.wav$/, 'recording.wav'), take.status])).toEqual([
      ['autumn-take-1.wav', 'ready'],
      ['recording.wav', 'ready'],
    ]);
    await artist.screenshot('artist-takes');
    await expectAccessible(artist);

    // The recorded take deleted from the page is gone from the link's list.
    await recorded.getByRole('button', { name: /^Delete / }).click();
    await expect.poll(async () => (await artistTakes(token)).map((take) => take.fileName)).toEqual(['autumn-take-1.wav']);
    await expect.poll(() => recorded.count()).toBe(0);
    expect(artist.problems).toEqual([]);

    // The account, on the board: the job's takes are in; select the artist's upload and accept it.
    await main.goto('/console/jobs');
    await column(main, 'Takes in').getByRole('link', { name: job.title }).click();
    const row = main.page.getByRole('row', { name: /^autumn-take-1\.wav/ });
    await row.getByRole('button', { name: 'Select autumn-take-1.wav' }).click();
    await expect.poll(async () => (await getJob(job.id)).status).toBe('SELECTED');
    expect((await getJob(job.id)).selectedFileId).toBe(takes[0]!.fileId);
    await main.page.getByRole('button', { name: 'Accept the selected take' }).click();
    await expect.poll(async () => (await getJob(job.id)).status).toBe('ACCEPTED');
    const message = (await call('GET', `/notification/get?id=${job.notificationId}`, { token: account.apiKey })).body;
    expect(message.recording.fileId).toBe(takes[0]!.fileId);
    expect(main.problems).toEqual([]);

    // Accepted, the link ends: the artist's page says so in their words.
    await artist.goto(link.pathname);
    expect(await heading(artist).textContent()).toBe('This link does not open');
    expect(await artist.page.getByRole('alert').textContent()).toMatch(/no longer opens/);
    await artist.context.close();
  });
});
