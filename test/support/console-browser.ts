import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { inject } from 'vitest';
import { chromiumFlags, findChromiumOnThisMachine } from '../../src/dev/chromium.ts';
import { newAccount, type TestAccount } from './api.ts';

// A real Chromium against the run's service (docs/console.md, "Tests"): one browser per test file, a context of its
// own (own cookies) per signed-in page, and a record of whatever went wrong in the page.

const outputRoot = fileURLToPath(new URL('../../test-output/console/', import.meta.url));

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  account: TestAccount;
  /**
   * What went wrong while the page was used, one line each: console errors (a refused Content-Security-Policy is
   * one), uncaught page errors, failed requests (no answer, or 4xx/5xx) and any request to another origin.
   */
  problems: string[];
  /** The scripts the page has loaded so far, with their bodies' sizes once gzipped is the caller's to work out. */
  scripts: Array<{ url: string; body: Promise<Buffer> }>;
  /** Goes to a console path (`/console/...`) of the run's service and waits for the page's own requests to end. */
  goto(path: string): Promise<void>;
  /** Saves a full-page screenshot as test-output/console/<test file>/<name>.png; answers its path. */
  screenshot(name: string): Promise<string>;
}

export interface ConsoleBrowser {
  /** A page in a fresh context, signed in through the sign-in form to `account` (a fresh account by default). */
  signedInPage(account?: TestAccount): Promise<ConsolePage>;
  /** A page in a fresh context, not signed in, on the console's sign-in form. */
  signedOutPage(account?: TestAccount): Promise<ConsolePage>;
  close(): Promise<void>;
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n').find((line) => line.trim()) ?? 'unknown error';

/** Finds Chromium (CHROMIUM_PATH, PATH, @sparticuz/chromium) and launches it; one that cannot start fails the test, never skips it. */
export async function launchChromium(env: NodeJS.ProcessEnv = process.env, extraFlags: string[] = []): Promise<Browser> {
  const executablePath = await findChromiumOnThisMachine((line) => process.stderr.write(`${line}\n`), env);
  try {
    // Playwright gives each launch a fresh temporary profile (--user-data-dir) and removes it on close.
    return await chromium.launch({ executablePath, headless: true, args: [...chromiumFlags, ...extraFlags], timeout: 60_000 });
  } catch (error) {
    throw new Error(
      `Chromium at ${executablePath} did not start: ${firstLine(error)}. The console's tests need a Chromium that runs here: set CHROMIUM_PATH to one, put chromium on PATH, or keep the devDependency @sparticuz/chromium (docs/console.md, "Tests").`,
      { cause: error },
    );
  }
}

/**
 * A microphone for pages that record: Chromium's fake capture device (a tone with a beep each second), granted
 * without a prompt.
 */
export const fakeMicrophoneFlags = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'];

/** Opens one Chromium for a test file (`import.meta.url` names the folder its screenshots go to), with any extra flags. */
export async function openConsoleBrowser(testFileUrl: string, extraFlags: string[] = []): Promise<ConsoleBrowser> {
  const browser = await launchChromium(process.env, extraFlags);
  const apiUrl = inject('apiUrl');
  const apiOrigin = new URL(apiUrl).origin;
  const screenshots = join(outputRoot, basename(fileURLToPath(testFileUrl)).replace(/\.test\.ts$/, ''));
  await mkdir(screenshots, { recursive: true });

  async function open(account: TestAccount): Promise<ConsolePage> {
    const context = await browser.newContext({ baseURL: apiUrl, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const scripts: ConsolePage['scripts'] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      seenAt.set(request, Date.now());
      if (new URL(request.url()).origin !== apiOrigin) problems.push(`request to another origin: ${request.method()} ${request.url()}`);
    });
    // A page that polls, or has just loaded, has a read in flight now and then; leaving it through goto() aborts that
    // read, which is the test's doing, not the page's: one that began before a goto() had ended (a poll may begin
    // while the navigation is on its way to the browser) and failed after it began. Any other failure, and any other
    // abort, is a problem.
    const gotos: Array<{ startedAt: number; endedAt: number }> = [];
    const seenAt = new WeakMap<Request, number>();
    const abortedByGoto = (request: Request, failedAt: number) => {
      const timed = request.timing().startTime;
      const startedAt = timed > 0 ? timed : (seenAt.get(request) ?? failedAt);
      return gotos.some((goto) => failedAt >= goto.startedAt && startedAt <= goto.endedAt);
    };
    page.on('requestfailed', (request) => {
      const errorText = request.failure()?.errorText ?? 'no answer';
      // A read, or a page's script chunk still loading, that the test's own navigation cut off.
      if (errorText === 'net::ERR_ABORTED' && ['fetch', 'script'].includes(request.resourceType()) && abortedByGoto(request, Date.now())) return;
      problems.push(`request failed: ${request.method()} ${request.url()} (${errorText})`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} for ${response.request().method()} ${response.url()}`);
      if (response.request().resourceType() !== 'script') return;
      const body = response.body();
      // A page navigated away from before its scripts were read: their bodies are gone, which is an error only if asked for.
      body.catch(() => undefined);
      scripts.push({ url: response.url(), body });
    });
    return {
      page,
      context,
      account,
      problems,
      scripts,
      async goto(path) {
        const goto = { startedAt: Date.now(), endedAt: Infinity };
        gotos.push(goto);
        try {
          await page.goto(path, { waitUntil: 'networkidle' });
        } finally {
          goto.endedAt = Date.now();
        }
      },
      async screenshot(name) {
        const path = join(screenshots, `${name}.png`);
        await page.screenshot({ path, fullPage: true });
        return path;
      },
    };
  }

  async function signedOutPage(account?: TestAccount): Promise<ConsolePage> {
    const consolePage = await open(account ?? (await newAccount()));
    await consolePage.goto('/console');
    await consolePage.page.getByLabel('API key').waitFor();
    return consolePage;
  }

  return {
    signedOutPage,
    async signedInPage(account) {
      const consolePage = await signedOutPage(account);
      await consolePage.page.getByLabel('API key').fill(consolePage.account.apiKey);
      await consolePage.page.getByRole('button', { name: 'Sign in' }).click();
      await consolePage.page.getByRole('navigation', { name: 'Sections' }).waitFor();
      return consolePage;
    },
    close: () => browser.close(),
  };
}

/**
 * A test that walks every control of several pages by keyboard takes a round trip to the browser per key and per
 * control: seconds on an idle machine, and more than the suite's 30 s per test beside a bench (load 11 on 2 cores).
 */
export const keyboardWalkTimeoutMs = 120_000;

/** The controls a person can reach: links, buttons, fields and disclosure summaries. */
const controlSelector = 'a[href], button, input, select, textarea, summary';

/**
 * The visible controls whose accessible name is empty, as Chromium's accessibility tree computes it (Playwright's
 * ARIA snapshot: label, aria-label, aria-labelledby, or text for links and buttons). Empty when every one is labelled.
 */
export async function unlabelledControls(page: Page): Promise<string[]> {
  const unnamed: string[] = [];
  for (const control of await page.locator(controlSelector).all()) {
    if (!(await control.isVisible())) continue;
    const [own = ''] = (await control.ariaSnapshot()).split('\n');
    // `- role "name"`, `- role "name":` or `- text: name`: a role with no name is the failure.
    if (!/^- (\w+ ".+"|text: .+)/.test(own)) unnamed.push(`${own} (id ${await control.getAttribute('id')}, name ${await control.getAttribute('name')})`);
  }
  return unnamed;
}

/**
 * The visible controls that Tab never reaches, walking the page's tab order from the top. Empty when every control
 * can be reached by keyboard. (The page's side is plain script: test code is type-checked without the DOM's types.)
 */
export async function controlsOutOfTabOrder(page: Page): Promise<string[]> {
  // The page notes each control focus reaches, so the walk is one key press per step with no read between them.
  const count = await page.evaluate<number>(`(() => {
    const controls = [...document.querySelectorAll(${JSON.stringify(controlSelector)})].filter((element) => element.checkVisibility());
    controls.forEach((element, index) => element.setAttribute('data-control', String(index)));
    const reached = new Set();
    const note = (event) => { const id = event.target?.getAttribute?.('data-control'); if (id !== null && id !== undefined) reached.add(id); };
    document.addEventListener('focusin', note, true);
    window.__tabWalk = { reached, stop: () => document.removeEventListener('focusin', note, true) };
    document.activeElement?.blur();
    return controls.length;
  })()`);
  // Some controls take several Tab stops (a time field's hours and minutes, an audio player's buttons), and leaving
  // the page's end passes the browser's own: walk well past the count; a control reached twice counts once.
  for (let step = 0; step < count * 3 + 10; step++) await page.keyboard.press('Tab');
  return page.evaluate<string[]>(`(() => {
    const { reached, stop } = window.__tabWalk;
    stop();
    delete window.__tabWalk;
    const missed = [...document.querySelectorAll('[data-control]')].filter((element) => !reached.has(element.getAttribute('data-control')));
    document.querySelectorAll('[data-control]').forEach((element) => element.removeAttribute('data-control'));
    return missed.map((element) => element.outerHTML.slice(0, 120));
  })()`);
}
