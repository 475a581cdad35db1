/**
 * `npm run bench:console`: the console in a real Chromium on a seeded account (issue 42, "Benchmark").
 *
 * Seeds one account (bench/support/console-seed.ts): MESSAGES (100) messages, a campaign sent to CAMPAIGN_DEVICES
 * (10,000) devices, an A/B test (AB_DEVICES, 1,000, 20 % tested) with both arms sent, a flow entered by FLOW_RUNS
 * (1,000) people, an endpoint and a recording job; the sends and runs are the real worker's (a process of its own),
 * the API is a process of its own serving the console's build (built first when its sources changed).
 *
 * 1. First load: a fresh browser context signs in and lands on Messages; the JavaScript it loaded, gzipped (level 9,
 *    as the build's .gz files), in KiB. Goal ≤ 300.
 * 2. Each page that exists (bench/support/console-pages.ts): REPEATS (5) full navigations to its address with a warm
 *    HTTP cache; per visit, navigation start → the element holding the seeded data visible (the page's own clock).
 *    The page's figure is the median; slowestPageMs is the highest median. Goal ≤ 1,500 ms on 2 cores.
 *    Baseline per page: the API GETs that the page made before its data showed, sent straight from this process with
 *    the same session cookie, all at once (median over as many rounds); the ratio page / baseline is the console's
 *    own cost (booting the app, the session check, the page's chunk, rendering) over the API's. Beside it, when the
 *    app had started (DOMContentLoaded's end: the document fetched and the entry's scripts run) and when the last of
 *    its API answers had been read (Resource Timing), so the time between is the app's own.
 *
 * Figures to stdout (the last line is one JSON object), progress to stderr. Environment (all optional): MESSAGES,
 * CAMPAIGN_DEVICES, AB_DEVICES, FLOW_RUNS, REPEATS, DATABASE_URL (a server to create a scratch database on; embedded
 * PostgreSQL otherwise), CHROMIUM_PATH, SCREENSHOTS (a folder for a PNG of each page), LOG_LEVEL for the service's own logs on stderr (warn).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { chromiumFlags, findChromiumOnThisMachine } from '../src/dev/chromium.ts';
import { ensureConsoleBuilt } from '../src/dev/console-build.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { gzippedBytes } from '../test/console/first-load.ts';
import { consolePages, revealData, visitPage, type ConsolePageSpec } from './support/console-pages.ts';
import { seedConsoleAccount, type SeededAccount } from './support/console-seed.ts';
import { positiveInt } from './support/env.ts';
import { machineLines } from './support/machine.ts';
import { runBench, startBenchApiProcess, startBenchWorkerProcess, startStack, type BenchContext } from './support/stack.ts';
import { ascending, fmt, percentile } from './support/stats.ts';

const sizes = {
  messages: positiveInt('MESSAGES', 100),
  campaignDevices: positiveInt('CAMPAIGN_DEVICES', 10_000),
  abTestDevices: positiveInt('AB_DEVICES', 1000, 10),
  flowRuns: positiveInt('FLOW_RUNS', 1000),
};
const REPEATS = positiveInt('REPEATS', 5);
/** A folder to save each page's screenshot in (1280×800, as the page stands once measured), e.g. docs/console. */
const SCREENSHOTS = process.env.SCREENSHOTS ?? '';
const FIRST_LOAD_GOAL_KIB = 300;
const SLOWEST_PAGE_GOAL_MS = 1500;
const taskQueue = `bench-console-${randomBytes(4).toString('hex')}`;

const progress = (message: string) => process.stderr.write(`[bench:console] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const median = (values: number[]) => percentile(ascending(values), 50);

/** A context of its own (cookies, cache) signed in through the sign-in form; answers the gzipped size of the first load's scripts. */
async function signIn(browser: Browser, origin: string, apiKey: string): Promise<{ context: BrowserContext; firstLoadBytes: number }> {
  const context = await browser.newContext({ baseURL: origin, viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  const page = await context.newPage();
  const scripts: Array<Promise<Buffer>> = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.push(response.body());
  });
  await page.goto('/console', { waitUntil: 'commit' });
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('table').getByRole('rowheader').first().waitFor();
  const firstLoadBytes = (await Promise.all(scripts)).reduce((sum, body) => sum + gzippedBytes(body), 0);
  return { context, firstLoadBytes };
}

/** The page's API GETs sent at once from here with the browser's session cookie; answers the time until all are read. */
async function apiBaselineMs(origin: string, cookie: string, calls: string[]): Promise<number> {
  const started = performance.now();
  await Promise.all(
    calls.map(async (path) => {
      const answer = await fetch(`${origin}${path}`, { headers: { cookie } });
      await answer.arrayBuffer();
      if (!answer.ok) throw new Error(`baseline GET ${path} answered ${answer.status}`);
    }),
  );
  return performance.now() - started;
}

interface PageFigures {
  name: string;
  visitsMs: number[];
  appStartedMs: number[];
  apiAnsweredMs: number[];
  baselineMs: number[];
  apiCalls: string[];
  timeline: string[];
}

async function measurePages(context: BrowserContext, origin: string, pages: ConsolePageSpec[]): Promise<PageFigures[]> {
  const cookie = (await context.cookies()).map((entry) => `${entry.name}=${entry.value}`).join('; ');
  const page = await context.newPage();
  const figures: PageFigures[] = [];
  for (const spec of pages) {
    const entry: PageFigures = { name: spec.name, visitsMs: [], appStartedMs: [], apiAnsweredMs: [], baselineMs: [], apiCalls: [], timeline: [] };
    for (let round = 0; round < REPEATS; round++) {
      const visit = await visitPage(page, origin, spec);
      entry.visitsMs.push(visit.ms);
      entry.appStartedMs.push(visit.appStartedMs);
      entry.apiAnsweredMs.push(visit.apiAnsweredMs);
      entry.apiCalls = visit.apiCalls;
      entry.timeline = visit.timeline;
      entry.baselineMs.push(await apiBaselineMs(origin, cookie, visit.apiCalls));
    }
    if (SCREENSHOTS) {
      await revealData(page);
      await page.screenshot({ path: join(SCREENSHOTS, `${spec.name}.png`) });
    }
    progress(`${spec.name}: ${entry.visitsMs.map((ms) => fmt(ms, 0)).join(' ')} ms; the last visit's fetches: ${entry.timeline.join(', ')}`);
    figures.push(entry);
  }
  await page.close();
  return figures;
}

async function launch(): Promise<Browser> {
  const executablePath = await findChromiumOnThisMachine(progress);
  return chromium.launch({ executablePath, headless: true, args: chromiumFlags, timeout: 60_000 });
}

async function main(context: BenchContext): Promise<number> {
  const loadAtStart = loadavg();
  progress(`sizes ${JSON.stringify(sizes)} REPEATS=${REPEATS}`);
  await ensureConsoleBuilt(progress);
  const stack = await startStack(context, progress, { taskQueue, outboundAllowCidrs: '127.0.0.0/8' });
  await startBenchWorkerProcess(context, stack, { PUSH_PROVIDER: 'log' });
  const api = await startBenchApiProcess(context, stack, { INGEST_RATE_LIMIT_PER_SECOND: '1000000', INGEST_RATE_LIMIT_BURST: '1000000' });
  const { account, apiKey } = await createAccount(stack.workerOrm.em.fork(), { name: 'bench-console' });
  const seeding = { stack, apiUrl: api.url, accountId: account.id, apiKey, progress, signal: context.signal };
  const seeded: SeededAccount = await seedConsoleAccount(seeding, sizes);

  const browser = await launch();
  context.teardown.add('Chromium', () => browser.close());
  const origin = new URL(api.url).origin;
  progress('signing in (first load)');
  const { context: browserContext, firstLoadBytes } = await signIn(browser, origin, apiKey);
  const pages = consolePages(seeded, sizes);
  progress(`measuring ${pages.map((spec) => spec.name).join(', ')}, ${REPEATS} visits each`);
  const figures = await measurePages(browserContext, origin, pages);
  report(await machineLines(stack.sql, loadAtStart), firstLoadBytes, figures);
  return 0;
}

function report(machine: string[], firstLoadBytes: number, figures: PageFigures[]): void {
  const firstLoadJsKiB = Number((firstLoadBytes / 1024).toFixed(1));
  const pages = Object.fromEntries(figures.map((entry) => [entry.name, Math.round(median(entry.visitsMs))]));
  const baselines = Object.fromEntries(figures.map((entry) => [entry.name, Number(median(entry.baselineMs).toFixed(1))]));
  const ratios = Object.fromEntries(figures.map((entry) => [entry.name, Number((pages[entry.name]! / baselines[entry.name]!).toFixed(1))]));
  const slowestPageMs = Math.max(...Object.values(pages));
  const appStartedMs = Object.fromEntries(figures.map((entry) => [entry.name, Math.round(median(entry.appStartedMs))]));
  const apiAnsweredMs = Object.fromEntries(figures.map((entry) => [entry.name, Math.round(median(entry.apiAnsweredMs))]));
  out(`bench/console  ${JSON.stringify(sizes)}  ${REPEATS} visits a page, median`);
  out();
  for (const line of machine) out(line);
  out(`  load average at end (1/5/15 min)      ${loadavg().map((value) => fmt(value, 2)).join(' / ')}`);
  out();
  out(`First load (sign-in → Messages): ${fmt(firstLoadJsKiB, 1)} KiB of JavaScript gzipped (goal ≤ ${FIRST_LOAD_GOAL_KIB})`);
  out();
  out('| page | data shown, ms (median) | min–max | app started (DOMContentLoaded), ms | its API answered, ms | API calls | baseline: the same GETs direct, ms | ratio |');
  out('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const entry of figures) {
    const sorted = ascending(entry.visitsMs);
    out(`| ${entry.name} | ${pages[entry.name]} | ${fmt(sorted[0]!, 0)}–${fmt(sorted.at(-1)!, 0)} | ${fmt(median(entry.appStartedMs), 0)} | ${fmt(median(entry.apiAnsweredMs), 0)} | ${entry.apiCalls.length} | ${baselines[entry.name]} | ${ratios[entry.name]} |`);
  }
  out();
  out(`slowest page ${slowestPageMs} ms (goal ≤ ${SLOWEST_PAGE_GOAL_MS} on 2 cores)`);
  out(JSON.stringify({ bench: 'console', sizes, repeats: REPEATS, pages, firstLoadJsKiB, slowestPageMs, appStartedMs, apiAnsweredMs, baselineMs: baselines, ratioToBaseline: ratios }));
}

runBench(progress, main);
