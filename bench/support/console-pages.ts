import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Locator, Page, Request } from 'playwright-core';
import type { SeededAccount } from './console-seed.ts';

// The pages `npm run bench:console` opens, each with the element that shows its data (not a heading or a "Loading…"):
// the page counts as shown when that element is visible.

export interface ConsolePageSpec {
  name: string;
  path: string;
  /** The element that appears once the page shows the seeded data. */
  data(page: Page): Locator;
  /** The console's folder of the page's code (console/src/pages/<folder>): a page not built yet is left out. */
  folder: string;
}

const pagesDir = fileURLToPath(new URL('../../console/src/pages/', import.meta.url));

/** Counts as the console shows them (Intl.NumberFormat in the browser's en-US locale). */
const count = (value: number) => new Intl.NumberFormat('en-US').format(value);

export function consolePages(seeded: SeededAccount, sizes: { campaignDevices: number; flowRuns: number }): ConsolePageSpec[] {
  const all: ConsolePageSpec[] = [
    { name: 'messages', folder: 'messages', path: '/console/messages', data: (page) => page.getByRole('rowheader', { name: seeded.newestMessageTitle, exact: true }) },
    {
      name: 'campaign',
      folder: 'messages',
      path: `/console/messages/${seeded.campaignId}`,
      data: (page) => page.getByRole('row', { name: /^Sent\b/ }).getByRole('cell', { name: count(sizes.campaignDevices), exact: true }).first(),
    },
    { name: 'abtest', folder: 'abtests', path: `/console/abtests/${seeded.abTestId}`, data: (page) => page.getByRole('table', { name: /arms/i }).getByRole('rowheader').first() },
    {
      name: 'flow',
      folder: 'flows',
      path: `/console/flows/${seeded.experienceId}`,
      data: (page) => page.locator('tr[data-node-id="wait"]').getByRole('cell', { name: count(sizes.flowRuns), exact: true }).first(),
    },
    { name: 'deliveries', folder: 'deliveries', path: '/console/deliveries', data: (page) => page.getByRole('rowheader', { name: seeded.endpointUrl }) },
    { name: 'jobs', folder: 'jobs', path: '/console/jobs', data: (page) => page.getByText(seeded.jobTitle, { exact: true }).first() },
    { name: 'audience', folder: 'audience', path: `/console/audience?app=${seeded.campaignAppId}`, data: (page) => page.getByRole('table', { name: /devices/ }).getByRole('rowheader').first() },
    { name: 'settings', folder: 'settings', path: '/console/settings', data: (page) => page.getByRole('region', { name: 'Apps' }).locator('form').first() },
  ];
  return all.filter((spec) => existsSync(`${pagesDir}${spec.folder}`));
}

export interface PageVisit {
  /** Navigation start → the data element visible, by the page's own clock (performance.now()). */
  ms: number;
  /** Navigation start → DOMContentLoaded's end: the document and the entry's scripts run, before any data is asked for. */
  appStartedMs: number;
  /** The API's GETs the page made on the way (path and query), for the baseline. */
  apiCalls: string[];
}

/**
 * Opens `spec`'s address in `page` (signed in): a full navigation, so the app starts as on a deep link, its assets
 * from the browser's cache once seen. The time is the page's own performance.now() (it counts from the navigation's
 * start) read once the data element is visible, so it includes one round trip to the browser (about a millisecond).
 */
export async function visitPage(page: Page, origin: string, spec: ConsolePageSpec): Promise<PageVisit> {
  const apiCalls: string[] = [];
  const onRequest = (request: Request) => {
    if (request.method() === 'GET' && ['fetch', 'xhr'].includes(request.resourceType())) apiCalls.push(request.url().slice(origin.length));
  };
  page.on('request', onRequest);
  try {
    await page.goto(spec.path, { waitUntil: 'commit' });
    await spec.data(page).waitFor({ state: 'visible', timeout: 60_000 });
    const ms = await page.evaluate<number>('performance.now()');
    const appStartedMs = await page.evaluate<number>(`performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd`);
    return { ms, appStartedMs, apiCalls };
  } finally {
    page.off('request', onRequest);
  }
}
