import { call, sampleMessage, type TestAccount } from './api.ts';

/** The job body from the spec's sample request, for a message of the account. */
export const sampleJob = (account: TestAccount, notificationId: string, overrides: Record<string, unknown> = {}) => ({
  title: 'Weekend sale voice-over',
  description: 'Friendly, upbeat, 10 seconds',
  richPushLevel: 'TORSO',
  dueDate: Date.now() + 7 * 24 * 3600 * 1000,
  artistDueDate: Date.now() + 5 * 24 * 3600 * 1000,
  artist: 'artist@example.com',
  appId: account.appId,
  favourite: 0,
  script: 'This weekend only: up to fifty percent off.',
  notificationId,
  jobType: 'RICHPUSH',
  ...overrides,
});

export async function newMessage(account: TestAccount): Promise<string> {
  const response = await call('POST', '/notification/create', { token: account.apiKey, body: sampleMessage(account.appId) });
  if (response.status !== 201) throw new Error(`message creation failed: ${response.status}`);
  return response.body.id;
}

/** A message and its recording job, created through the suite's API or the one at `baseUrl`. */
export async function newJob(account: TestAccount, overrides: Record<string, unknown> = {}, baseUrl?: string): Promise<any> {
  const notificationId = await newMessage(account);
  const response = await call('POST', '/job/create', { baseUrl, token: account.apiKey, body: sampleJob(account, notificationId, overrides) });
  if (response.status !== 201) throw new Error(`job creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}
