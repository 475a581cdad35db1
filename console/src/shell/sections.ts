/**
 * The console's sections, in the order of value (issue 42, "Pages"). Each is a link in the navigation and a
 * route under /console; a section without its page yet shows what it will hold and the API routes that serve it
 * today. Adding a page: docs/console.md, "Adding a page".
 */
export interface Section {
  path: string;
  name: string;
  /** What the section will show, for its placeholder until its page exists. */
  purpose: string;
  /** The public API routes behind it, for the placeholder. */
  routes: string[];
}

export const sections: Section[] = [
  { path: '/messages', name: 'Messages', purpose: 'Messages and their sends: the funnel, live counts, schedule, cancel and test.', routes: ['GET /notification/list', 'GET /notification/get'] },
  { path: '/abtests', name: 'A/B tests', purpose: 'Arms side by side with their intervals, the test used, the decision and the remainder’s send.', routes: ['GET /abtest/list', 'GET /abtest/get'] },
  { path: '/flows', name: 'Flows', purpose: 'Experiences as graphs with counts on each node, their runs, and a person’s path.', routes: ['GET /accounts/{accountId}/experiences'] },
  { path: '/deliveries', name: 'Deliveries', purpose: 'Webhook endpoints and their attempts; redeliver, recover, send a test event.', routes: ['GET /accounts/{accountId}/endpoints', 'GET /accounts/{accountId}/deliveries'] },
  { path: '/jobs', name: 'Recording jobs', purpose: 'A board by state with artist and due dates; takes with players, select and accept.', routes: ['GET /job/list'] },
  { path: '/audience', name: 'Audience', purpose: 'Devices, segments with their live size and a sample, events held or refused at ingest.', routes: ['GET /device/list', 'GET /filter/list'] },
  { path: '/settings', name: 'Settings', purpose: 'Apps (frequency cap, quiet hours, time zone), endpoints and connections.', routes: ['GET /accounts/{accountId}/apps'] },
];
