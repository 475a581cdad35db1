import { scheduleAbTest, updateAbTest, validateAbTest } from '../../src/domain/abtests/change-ab-test.ts';
import { createAbTest } from '../../src/domain/abtests/create-ab-test.ts';
import { createApp } from '../../src/domain/apps/create-app.ts';
import { createConnection } from '../../src/domain/connections/create-connection.ts';
import { createEndpoint } from '../../src/domain/endpoints/create-endpoint.ts';
import { createExperience } from '../../src/domain/experiences/create-experience.ts';
import { experienceDefinitionSchema } from '../../src/domain/experiences/definition-schema.ts';
import { publishExperience } from '../../src/domain/experiences/publish-experience.ts';
import { createNotification } from '../../src/domain/notifications/create-notification.ts';
import { createSegment } from '../../src/domain/segments/create-segment.ts';
import { parseAllowCidrs, systemResolve } from '../../src/security/ip-policy.ts';
import { createSecretBox } from '../../src/security/secret-box.ts';
import { buildWebhookHeaders } from '../../src/security/standard-webhooks.ts';
import { sampleMessage } from '../../test/support/samples.ts';
import { seedDevices } from './seed-devices.ts';
import type { Stack } from './stack.ts';
import { runBounded } from './stats.ts';
import { waitingFlow } from './waiting-flow.ts';

// The seeded account of `npm run bench:console` (issue 42, "Benchmark"): what each page shows, made through the
// domain functions and fast paths the other benches use (devices inserted in bulk as bench/campaign.ts does, runs
// started by signed events through the API's ingest as bench/flows.ts does), the sends done by the real worker.

export interface SeedSizes {
  messages: number;
  campaignDevices: number;
  abTestDevices: number;
  flowRuns: number;
}

export interface SeededAccount {
  accountId: string;
  apiKey: string;
  newestMessageTitle: string;
  campaignId: string;
  /** The app of the campaign's devices. */
  campaignAppId: string;
  abTestId: string;
  experienceId: string;
  endpointUrl: string;
  jobTitle: string;
  appName: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const allowCidrs = '127.0.0.0/8';

/** Polls `count` until it reaches `target`; throws after `timeoutMs`. */
async function waitForCount(label: string, count: () => Promise<number>, target: number, progress: (line: string) => void, signal: AbortSignal, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  for (;;) {
    signal.throwIfAborted();
    const value = await count();
    if (value >= target) return;
    if (Date.now() > deadline) throw new Error(`${label}: ${value} of ${target} after ${timeoutMs / 1000} s`);
    if (value !== last) progress(`${label}: ${value} of ${target}`);
    last = value;
    await sleep(500);
  }
}

const countOf = async (stack: Stack, query: string, values: unknown[]) => Number((await stack.sql.query<{ n: string }>(query, values)).rows[0]!.n);

type Seeding = { stack: Stack; apiUrl: string; accountId: string; apiKey: string; progress: (line: string) => void; signal: AbortSignal };

/** A segment of every device of a new app of `devices` devices; answers the app and the segment. */
async function appWithDevices(seeding: Seeding, name: string, devices: number) {
  const em = () => seeding.stack.workerOrm.em.fork();
  const app = await createApp(em(), seeding.accountId, { name });
  await seedDevices(seeding.stack.sql, seeding.progress, seeding.accountId, app.id, devices, name);
  const { segment } = await createSegment(em(), seeding.accountId, { appId: app.id, name: 'everyone', rules: { all: [] } });
  return { appId: app.id, segmentId: segment.id };
}

async function api(seeding: Seeding, path: string, body: unknown): Promise<{ id?: string }> {
  const answer = await fetch(`${seeding.apiUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${seeding.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await answer.json()) as { id?: string };
  if (!answer.ok) throw new Error(`POST ${path} answered ${answer.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A message scheduled through the API to every device of an app of `devices`, sent to the end by the worker. */
async function sentCampaign(seeding: Seeding, devices: number): Promise<{ campaignId: string; campaignAppId: string }> {
  const { appId, segmentId } = await appWithDevices(seeding, 'campaign app', devices);
  const message = await api(seeding, '/notification/create', { ...sampleMessage(appId, segmentId), type: 'PUSH', title: `Campaign to ${devices} devices` });
  const campaignId = message.id!;
  await api(seeding, `/notification/schedule?id=${campaignId}&appId=${appId}`, { playTime: Date.now() + 1000 });
  const ended = `select count(*) as n from campaigns where notification_id = $1 and state not in ('SCHEDULED', 'SENDING')`;
  await waitForCount('campaign sent', () => countOf(seeding.stack, ended, [campaignId]), 1, seeding.progress, seeding.signal);
  return { campaignId, campaignAppId: appId };
}

/** An A/B test on an app of `devices` (20 % tested, as bench/abtest.ts sets one up), waited for until both arms are sent. */
async function sentAbTest(seeding: Seeding, devices: number): Promise<string> {
  const { stack, accountId } = seeding;
  const { appId, segmentId } = await appWithDevices(seeding, 'A/B app', devices);
  const em = () => stack.workerOrm.em.fork();
  const [messageA, messageB] = [
    await createNotification(em(), accountId, { ...sampleMessage(appId), title: 'Arm A: 20 % off' }),
    await createNotification(em(), accountId, { ...sampleMessage(appId), title: 'Arm B: free shipping' }),
  ];
  const test = await createAbTest(em(), accountId, { appId, abTestName: 'Spring offer', filterId: segmentId, expiry: 60 });
  const deps = () => ({ em: em(), temporal: { client: stack.temporal.client, taskQueue: stack.settings.taskQueue } });
  const testPercent = 20;
  const playTime = { at: new Date(Date.now() + 2000), offsetMinutes: 0 };
  await updateAbTest(deps(), accountId, test.id, { templateIdA: messageA.id, templateIdB: messageB.id, testPercent, playTime });
  await validateAbTest(deps(), accountId, test.id, appId);
  await scheduleAbTest(deps(), accountId, test.id, appId);
  const armSends = 2 * Math.floor((devices * testPercent) / 200);
  const sent = `select count(*) as n from push_sends where ab_test_id = $1 and status = 'sent'`;
  await waitForCount('A/B test arms sent', () => countOf(stack, sent, [test.id]), armSends, seeding.progress, seeding.signal);
  return test.id;
}

/** A published flow (wait 30 days, then exit) entered by `runs` people through signed events to the API's ingest. */
async function flowWithRuns(seeding: Seeding, runs: number): Promise<string> {
  const { stack, accountId } = seeding;
  const em = () => stack.workerOrm.em.fork();
  const outbound = { allow: parseAllowCidrs(allowCidrs), resolve: systemResolve };
  const secrets = createSecretBox(stack.settings.secretsKey);
  const { connection, signingSecret } = await createConnection({ em: em(), secrets, outbound }, accountId, { provider: 'direct', label: 'bench' });
  const definition = experienceDefinitionSchema.parse(waitingFlow('Welcome series'));
  const experience = await createExperience(em(), accountId, { definition });
  await publishExperience(em(), accountId, experience.id);
  await runBounded(runs, 8, async (index) => {
    const messageId = `visit-${experience.id}-${index}`;
    const body = JSON.stringify({ version: '1', messageId, occurredAt: new Date().toISOString(), eventType: 'visit', clientUserId: `visitor-${index}` });
    const headers = buildWebhookHeaders({ id: messageId, timestamp: Math.floor(Date.now() / 1000), body, secrets: [signingSecret] });
    const answer = await fetch(`${seeding.apiUrl}/v1/in/${connection.inboundKey}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    if (answer.status !== 202) throw new Error(`event answered ${answer.status}: ${await answer.text()}`);
  });
  const started = `select count(*) as n from experience_runs where experience_id = $1`;
  await waitForCount('flow runs started', () => countOf(stack, started, [experience.id]), runs, seeding.progress, seeding.signal);
  return experience.id;
}

/** Everything the console's pages show, for one account; `progress` says how far it got. */
export async function seedConsoleAccount(seeding: Seeding, sizes: SeedSizes): Promise<SeededAccount> {
  const { stack, accountId, progress } = seeding;
  const em = () => stack.workerOrm.em.fork();
  progress(`seeding a campaign to ${sizes.campaignDevices} devices`);
  const { campaignId, campaignAppId } = await sentCampaign(seeding, sizes.campaignDevices);
  progress(`seeding an A/B test on ${sizes.abTestDevices} devices`);
  const abTestId = await sentAbTest(seeding, sizes.abTestDevices);
  progress(`seeding a flow with ${sizes.flowRuns} runs`);
  const experienceId = await flowWithRuns(seeding, sizes.flowRuns);
  const appName = 'Storefront';
  const app = await createApp(em(), accountId, { name: appName });
  progress(`seeding ${sizes.messages} messages`);
  let newest = { id: '', title: '' };
  for (let index = 1; index <= sizes.messages; index++) {
    newest = await createNotification(em(), accountId, { ...sampleMessage(app.id), title: `Weekly offer ${index}` });
  }
  const outbound = { allow: parseAllowCidrs(allowCidrs), resolve: systemResolve };
  const endpointUrl = 'https://127.0.0.1:9/hooks';
  await createEndpoint({ em: em(), secrets: createSecretBox(stack.settings.secretsKey), outbound }, accountId, { url: endpointUrl, eventTypes: ['webhook.test'], description: 'bench' });
  const jobTitle = 'Weekend sale voice-over';
  const jobBody = { title: jobTitle, description: 'Friendly, upbeat', richPushLevel: 'TORSO', dueDate: Date.now() + 7 * 86_400_000, artistDueDate: Date.now() + 5 * 86_400_000 };
  await api(seeding, '/job/create', { ...jobBody, artist: 'artist@example.com', appId: app.id, favourite: 0, script: 'This weekend only.', notificationId: newest.id, jobType: 'RICHPUSH' });
  return { accountId, apiKey: seeding.apiKey, newestMessageTitle: newest.title, campaignId, campaignAppId, abTestId, experienceId, endpointUrl, jobTitle, appName };
}
