import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page, Request } from 'playwright-core';
import type { SeededAccount } from './console-seed.ts';

// The pages `npm run bench:console` opens, each with the element that shows its data (not a heading or a "Loading…"):
// the page counts as shown when that element is visible. The check runs in the page on every animation frame
// (Playwright's locator waits poll every 500 ms after the first few tries, too coarse to time a page by; a string
// to evaluate is refused by the console's Content-Security-Policy, a function passed in is not).

/** Where a page's data shows: the first element of `selector` whose text is `text` (any, without it); with `header`, the
 * elements are table rows, and the cell reading `text` in a row headed `header` is the one. */
export interface DataElement {
  selector: string;
  text?: string;
  header?: string;
}

export interface ConsolePageSpec {
  name: string;
  path: string;
  /** The element that holds the seeded data. */
  data: DataElement;
  /** The console's folder of the page's code (console/src/pages/<folder>): a page not built yet is left out. */
  folder: string;
}

const pagesDir = fileURLToPath(new URL('../../console/src/pages/', import.meta.url));

/** Counts as the console shows them (Intl.NumberFormat in the browser's en-US locale). */
const count = (value: number) => new Intl.NumberFormat('en-US').format(value);

export function consolePages(seeded: SeededAccount, sizes: { campaignDevices: number; flowRuns: number }): ConsolePageSpec[] {
  const all: ConsolePageSpec[] = [
    { name: 'messages', folder: 'messages', path: '/console/messages', data: { selector: 'th[scope=row]', text: seeded.newestMessageTitle } },
    { name: 'campaign', folder: 'messages', path: `/console/messages/${seeded.campaignId}`, data: { selector: 'tr', header: 'Sent', text: count(sizes.campaignDevices) } },
    { name: 'abtest', folder: 'abtests', path: `/console/abtests/${seeded.abTestId}`, data: { selector: 'table.arms th[scope=row]', text: 'A' } },
    { name: 'flow', folder: 'flows', path: `/console/flows/${seeded.experienceId}`, data: { selector: 'tr[data-node-id="wait"]', header: 'wait', text: count(sizes.flowRuns) } },
    { name: 'deliveries', folder: 'deliveries', path: '/console/deliveries', data: { selector: 'th[scope=row]', text: seeded.endpointUrl } },
    { name: 'jobs', folder: 'jobs', path: '/console/jobs', data: { selector: 'li a', text: seeded.jobTitle } },
    { name: 'audience', folder: 'audience', path: `/console/audience?app=${seeded.campaignAppId}`, data: { selector: '#audience-devices ~ table tbody th' } },
    { name: 'settings', folder: 'settings', path: '/console/settings', data: { selector: '#settings-apps ~ form' } },
  ];
  return all.filter((spec) => existsSync(`${pagesDir}${spec.folder}`));
}

/** What the check below uses of the DOM (the bench is type-checked without the DOM's types). */
interface DomElement {
  textContent: string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  checkVisibility(): boolean;
  setAttribute(name: string, value: string): void;
}

/** Runs in the page: the page's clock once the data element is visible, else false. */
function dataShownAt(data: DataElement): number | false {
  const { document } = globalThis as unknown as { document: Pick<DomElement, 'querySelectorAll'> };
  const textOf = (element: DomElement) => element.textContent?.trim();
  let candidates = [...document.querySelectorAll(data.selector)];
  if (data.header !== undefined) {
    candidates = candidates.filter((row) => {
      const header = row.querySelector('th');
      return header !== null && textOf(header) === data.header;
    });
    candidates = candidates.flatMap((row) => [...row.querySelectorAll('td')]);
  }
  const element = candidates.find((candidate) => data.text === undefined || textOf(candidate) === data.text);
  if (!element?.checkVisibility()) return false;
  const shownAt = performance.now();
  // Marked, for a screenshot to bring into view (`revealData`).
  element.setAttribute('data-bench-shown', '');
  return shownAt;
}

/** Scrolls the data element last seen by `visitPage` into view (a campaign's funnel is below the fold at 1280×800). */
export async function revealData(page: Page): Promise<void> {
  await page.locator('[data-bench-shown]').first().scrollIntoViewIfNeeded({ timeout: 5000 });
}

export interface PageVisit {
  /** Navigation start → the data element visible, by the page's own clock (performance.now()). */
  ms: number;
  /** Navigation start → DOMContentLoaded's end: the document and the entry's scripts run, before any data is asked for. */
  appStartedMs: number;
  /** Navigation start → the last of the page's API answers read (Resource Timing's responseEnd of its fetches). */
  apiAnsweredMs: number;
  /** What the page fetched up to then, in order: `start–end name` in ms from the navigation's start. */
  timeline: string[];
  /** The API's GETs the page made on the way (path and query), for the baseline. */
  apiCalls: string[];
}

/**
 * Opens `spec`'s address in `page` (signed in): a full navigation, so the app starts as on a deep link, its assets
 * from the browser's cache once seen. The time is the page's own performance.now() (it counts from the navigation's
 * start) on the animation frame in which the data element is first visible.
 */
export async function visitPage(page: Page, origin: string, spec: ConsolePageSpec): Promise<PageVisit> {
  const apiCalls: string[] = [];
  const onRequest = (request: Request) => {
    if (request.method() === 'GET' && ['fetch', 'xhr'].includes(request.resourceType())) apiCalls.push(request.url().slice(origin.length));
  };
  page.on('request', onRequest);
  try {
    await page.goto(spec.path, { waitUntil: 'commit' });
    // The page's clock when the data element is first seen visible, checked on every animation frame.
    const seen = await page.waitForFunction(dataShownAt, spec.data, { polling: 'raf', timeout: 60_000 });
    const ms = (await seen.jsonValue()) as number;
    const appStartedMs = await page.evaluate<number>(`performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd`);
    const apiAnsweredMs = await page.evaluate<number>(
      `Math.max(0, ...performance.getEntriesByType('resource').filter((entry) => entry.initiatorType === 'fetch' && entry.responseEnd <= ${ms}).map((entry) => entry.responseEnd))`,
    );
    const timeline = await page.evaluate<string[]>(
      `performance.getEntriesByType('resource').filter((entry) => entry.startTime <= ${ms}).map((entry) => Math.round(entry.startTime) + '–' + Math.round(entry.responseEnd) + ' ' + new URL(entry.name).pathname)`,
    );
    return { ms, appStartedMs, apiAnsweredMs, apiCalls, timeline };
  } finally {
    page.off('request', onRequest);
  }
}
