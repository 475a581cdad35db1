import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { controlsOutOfTabOrder, keyboardWalkTimeoutMs, openConsoleBrowser, unlabelledControls, type ConsoleBrowser, type ConsolePage } from '../support/console-browser.ts';
import { publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned } from '../support/ingest.ts';
import { newEndpoint, waitForDeliveries, type EndpointFixture } from '../support/webhooks.ts';

// The console's Flows and Deliveries pages in a real Chromium against the run's service: what they show equals what
// the API answers, and what they do goes through the public API to the real stack (a local HTTPS receiver).

let browser: ConsoleBrowser;
let account: TestAccount;
let main: ConsolePage;
let flow: { experienceId: string; name: string };
let endpoint: EndpointFixture;

/** A person's signup waits at `await` when the plan is pro (until app.opened, or a purchase reaches the goal), else exits. */
const definition = {
  name: 'Pro onboarding',
  trigger: { eventType: 'signup', conditions: null },
  entry: { reentry: 'never' },
  goals: [{ id: 'purchased', eventType: 'purchase', conditions: null, exit: true }],
  maxDurationSeconds: 86_400,
  start: 'check',
  nodes: [
    { id: 'check', type: 'condition', if: { field: 'event.attributes.plan', op: 'eq', value: 'pro' }, then: 'await', else: 'done' },
    { id: 'await', type: 'waitForEvent', eventType: 'app.opened', conditions: null, timeoutSeconds: 3600, next: 'done', timeoutNext: 'done' },
    { id: 'done', type: 'exit' },
  ],
};

const byPerson = (runs: any[], person: string) => runs.find((run) => run.clientUserId === person);

async function startRuns(): Promise<void> {
  const connection = await newConnection(account);
  for (const [person, plan] of [['u_waits', 'pro'], ['u_buys', 'pro'], ['u_free', 'free']]) {
    expect((await postSigned(connection, directEvent({ eventType: 'signup', clientUserId: person, attributes: { plan } }))).status).toBe(202);
  }
  await waitForRuns(account, flow.experienceId, (runs) => runs.length === 3 && byPerson(runs, 'u_buys')?.currentNodeId === 'await', 30_000);
  expect((await postSigned(connection, directEvent({ eventType: 'purchase', clientUserId: 'u_buys' }))).status).toBe(202);
  await waitForRuns(account, flow.experienceId, (runs) => byPerson(runs, 'u_buys')?.status === 'goal_reached', 30_000);
}

beforeAll(async () => {
  browser = await openConsoleBrowser(import.meta.url);
  account = await newAccount();
  const published = await publishedExperience(account, definition);
  flow = { experienceId: published.experienceId, name: published.name };
  await startRuns();
  // The receiver refuses the first and third request (400: rejected, no retry) and takes the others.
  endpoint = await newEndpoint(account, ['webhook.test'], (_request, index) => (index % 2 === 0 ? { status: 400, body: `not yet (${index})` } : { status: 200, body: 'ok' }));
  main = await browser.signedInPage(account);
}, 120_000);

afterAll(async () => {
  await endpoint?.receiver.close();
  await browser?.close();
});

const apiGet = async (path: string) => {
  const answer = await call('GET', path, { token: account.apiKey });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};
const flowPath = () => `/accounts/${account.accountId}/experiences/${flow.experienceId}`;
const texts = (locator: ReturnType<ConsolePage['page']['locator']>) => locator.allTextContents();

describe('the Flows pages', () => {
  it('list the flows and draw a flow’s graph with each node’s counts, the same as the API’s and in a table', async () => {
    await main.goto('/console/flows');
    await main.page.getByRole('link', { name: flow.name }).click();
    await main.page.getByRole('heading', { level: 1, name: flow.name }).waitFor();
    await main.page.locator('table.node-counts').waitFor();
    const counts = await apiGet(`${flowPath()}/node-counts`);
    expect(counts.runs).toBe(3);
    const of = (nodeId: string) => counts.nodes.find((node: any) => node.nodeId === nodeId);
    expect(of('check')).toEqual({ nodeId: 'check', entered: 3, waiting: 0, passed: 3, stoppedHere: 0, goalReached: 1 });
    expect(of('await')).toEqual({ nodeId: 'await', entered: 2, waiting: 1, passed: 0, stoppedHere: 1, goalReached: 1 });
    expect(of('done')).toEqual({ nodeId: 'done', entered: 1, waiting: 0, passed: 1, stoppedHere: 0, goalReached: 0 });
    expect(counts.goals).toEqual([{ goalId: 'purchased', reached: 1 }]);
    for (const node of counts.nodes) {
      const drawn = await texts(main.page.locator(`svg.flow-graph g.flow-node[data-node-id="${node.nodeId}"] text`));
      expect(drawn.slice(1)).toEqual([`entered ${node.entered} · waiting ${node.waiting}`, `passed ${node.passed} · goal ${node.goalReached}`]);
      const row = await texts(main.page.locator(`table.node-counts tr[data-node-id="${node.nodeId}"] td.number`));
      expect(row).toEqual([node.entered, node.waiting, node.passed, node.stoppedHere, node.goalReached].map(String));
    }
    await main.screenshot('flow');
    expect(main.problems).toEqual([]);
  });

  it('filter the runs by state', async () => {
    await main.goto(`/console/flows/${flow.experienceId}`);
    const rows = main.page.locator('table.runs tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    await main.page.getByLabel('State').selectOption('running');
    await main.page.waitForURL(`**/console/flows/${flow.experienceId}?status=running`);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getByRole('rowheader').textContent()).toBe('u_waits');
    const running = await apiGet(`${flowPath()}/runs?status=running`);
    expect(running.items.map((run: any) => run.clientUserId)).toEqual(['u_waits']);
    await main.screenshot('flow-runs-running');
    expect(main.problems).toEqual([]);
  });

  it('show a person’s path as the API has it, each step with why, and the nodes skipped', async () => {
    const [run] = (await apiGet(`${flowPath()}/runs?clientUserId=u_free`)).items;
    await main.goto(`/console/flows/${flow.experienceId}?status=completed`);
    await main.page.getByRole('link', { name: 'u_free' }).click();
    await main.page.getByRole('heading', { level: 1, name: 'Path of u_free' }).waitFor();
    const steps = main.page.locator('ol.path > li');
    expect(await steps.evaluateAll((items) => items.map((item) => item.getAttribute('data-node-id')))).toEqual(run.path.map((step: any) => step.nodeId));
    expect(await texts(main.page.locator('ol.path .path-outcome'))).toEqual(run.path.map((step: any) => step.outcome));
    expect(run.path.map((step: any) => step.outcome)).toEqual(['else', 'exit']);
    expect(await steps.first().locator('.path-why').textContent()).toBe('The condition event.attributes.plan eq "pro" did not hold: else → done');
    expect(await main.page.locator('ul.skipped li').allTextContents()).toEqual(['await: Skipped: at check the run went “else”']);
    // Routing took every step when it entered: no workflow to link to.
    expect(run.workflowId).toBeNull();
    expect(await main.page.getByText('No workflow: routing took every step').count()).toBe(1);
    await main.screenshot('run-path');
    expect(main.problems).toEqual([]);
  });

  it('name a waiting run’s workflow, and where it waits', async () => {
    const [run] = (await apiGet(`${flowPath()}/runs?clientUserId=u_waits`)).items;
    await main.goto(`/console/flows/${flow.experienceId}/runs/${run.runId}`);
    await main.page.getByRole('heading', { level: 1, name: 'Path of u_waits' }).waitFor();
    expect(run.workflowId).toMatch(/^experience:/);
    // The suite's service has no Temporal UI (TEMPORAL_UI_URL unset): the page names the workflow and the setting.
    expect(await main.page.getByText(`Workflow ${run.workflowId} (set TEMPORAL_UI_URL`).count()).toBe(1);
    expect(await main.page.locator('ul.skipped li').allTextContents()).toEqual(['await: The run is here now', 'done: Not reached yet']);
    expect(main.problems).toEqual([]);
  });

  it('show a run that reached its goal: the goal as a step, and the node it left from', async () => {
    const [run] = (await apiGet(`${flowPath()}/runs?clientUserId=u_buys`)).items;
    await main.goto(`/console/flows/${flow.experienceId}/runs/${run.runId}`);
    await main.page.getByRole('heading', { level: 1, name: 'Path of u_buys' }).waitFor();
    expect(run.path.map((step: any) => step.nodeId)).toEqual(['check', 'goal:purchased']);
    const steps = main.page.locator('ol.path > li');
    expect(await steps.evaluateAll((items) => items.map((item) => item.getAttribute('data-node-id')))).toEqual(run.path.map((step: any) => step.nodeId));
    expect(await texts(main.page.locator('ol.path .path-why'))).toEqual([
      'The condition event.attributes.plan eq "pro" held: then → await',
      `Goal purchased: ${run.path[1].outcome}`,
    ]);
    expect(await main.page.locator('ul.skipped li').allTextContents()).toEqual([
      `await: The run ended here (goal_reached${run.endDetail ? `: ${run.endDetail}` : ''})`,
      'done: Not reached: the run ended (goal_reached) before it',
    ]);
    expect(main.problems).toEqual([]);
  });
});

describe('the Deliveries pages', () => {
  it('send a test event, show its failed attempt, and redeliver it to the local receiver', async () => {
    await main.goto('/console/deliveries');
    await main.page.getByRole('link', { name: endpoint.receiver.url }).click();
    await main.page.getByRole('heading', { level: 1 }).waitFor();
    await main.page.getByRole('button', { name: 'Send a webhook.test event' }).click();
    await endpoint.receiver.waitForRequests(1);
    const [failed] = await waitForDeliveries(account, endpoint.endpointId, (items) => items.length === 1 && items[0].status === 'failed');
    const row = main.page.locator(`tr[data-delivery-id="${failed.deliveryId}"]`);
    await expect.poll(() => row.locator('td').first().textContent(), { timeout: 10_000 }).toBe('failed');
    await row.locator('summary').first().click();
    const attempt = await texts(row.locator('table.attempts tbody tr td'));
    expect(attempt.slice(1, 4)).toEqual(['400', `${new Intl.NumberFormat('en-US').format(failed.attempts[0].durationMs)} ms`, 'rejected']);
    expect(attempt[4]).toContain('not yet (0)');
    await main.screenshot('endpoint-failed');

    await row.getByRole('button', { name: `Redeliver ${failed.deliveryId}` }).click();
    const [first, second] = await endpoint.receiver.waitForRequests(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const items = await waitForDeliveries(account, endpoint.endpointId, (all) => all.some((item) => item.redeliveryOf === failed.deliveryId && item.status === 'succeeded'));
    const redelivery = items.find((item) => item.redeliveryOf === failed.deliveryId);
    // The page follows it, without a reload, to its end.
    await expect.poll(() => main.page.locator(`tr[data-delivery-id="${redelivery.deliveryId}"] td`).first().textContent(), { timeout: 10_000 }).toBe('succeeded');
    await main.screenshot('endpoint-redelivered');
    expect(main.problems).toEqual([]);
  });

  it('recover every failed delivery since a time: only those nothing has redelivered', async () => {
    const sent = await call('POST', `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/test`, { token: account.apiKey });
    expect(sent.status).toBe(202);
    await waitForDeliveries(account, endpoint.endpointId, (items) => items.some((item) => item.eventId === sent.body.eventId && item.status === 'failed'));
    await main.goto(`/console/deliveries/${endpoint.endpointId}`);
    await main.page.getByRole('button', { name: 'Redeliver every failed delivery since then' }).click();
    await main.page.getByText('Redelivering 1 failed deliveries.').waitFor();
    const requests = await endpoint.receiver.waitForRequests(4);
    expect(JSON.parse(requests[3]!.body).id).toBe(sent.body.eventId);
    await waitForDeliveries(account, endpoint.endpointId, (items) => items.filter((item) => item.status === 'succeeded').length === 2);
    const recoverSection = main.page.locator('section[aria-labelledby="recover"]');
    await recoverSection.getByText('Copy as curl').click();
    expect(await recoverSection.locator('pre').textContent()).toMatch(
      new RegExp(`^curl -s -X POST "\\$API/accounts/${account.accountId}/endpoints/${endpoint.endpointId}/recover"`),
    );
    await main.screenshot('endpoint-recovered');
    expect(main.problems).toEqual([]);
  });
});

describe('on the Flows and Deliveries pages', () => {
  it('every control is labelled and reached by keyboard, and nothing goes wrong', { timeout: keyboardWalkTimeoutMs }, async () => {
    const [run] = (await apiGet(`${flowPath()}/runs?clientUserId=u_buys`)).items;
    const pages = [
      ['flows', '/console/flows'],
      ['flow-page', `/console/flows/${flow.experienceId}`],
      ['run-goal', `/console/flows/${flow.experienceId}/runs/${run.runId}`],
      ['endpoints', '/console/deliveries'],
      ['endpoint', `/console/deliveries/${endpoint.endpointId}`],
    ];
    for (const [name, path] of pages) {
      await main.goto(path!);
      await main.page.getByRole('heading', { level: 1 }).waitFor();
      for (const summary of await main.page.locator('summary').all()) await summary.click();
      expect(await unlabelledControls(main.page), path).toEqual([]);
      expect(await controlsOutOfTabOrder(main.page), path).toEqual([]);
      await main.screenshot(name!);
    }
    expect(main.problems).toEqual([]);
  });
});
