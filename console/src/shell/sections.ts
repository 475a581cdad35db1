/** The console's sections, in the order of value (issue 42, "Pages"): each a link in the navigation and a route under /console. */
export interface Section {
  path: string;
  name: string;
}

export const sections: Section[] = [
  { path: '/messages', name: 'Messages' },
  { path: '/abtests', name: 'A/B tests' },
  { path: '/flows', name: 'Flows' },
  { path: '/deliveries', name: 'Deliveries' },
  { path: '/jobs', name: 'Recording jobs' },
  { path: '/audience', name: 'Audience' },
  { path: '/settings', name: 'Settings' },
];
