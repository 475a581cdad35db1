import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { sendTest, waitForFinishedDelivery } from '../support/deliveries.ts';
import { experienceDefinition, publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned } from '../support/ingest.ts';
import { ok } from '../support/http-assertions.ts';
import { newJob, newMessage } from '../support/jobs.ts';
import { fuzzSeed, fuzzSeedVariable, judgeReportedRun, provideSchemathesis, reportArgs } from '../support/schemathesis.ts';
import { newEndpoint, type EndpointFixture } from '../support/webhooks.ts';
import { readyFile } from '../support/files.ts';

// Schemathesis generates requests from GET /openapi.json (valid ones, and ones that break the schema on purpose,
// NUL and lone surrogates included) for every operation, then chains them through the stateful phase. Real ids go in
// through its config, so the account routes are reached instead of answering 404. Any 5xx fails the test, as does a
// request the service did not answer; a request the fuzzer's own HTTP client refused to send is reported, not failed.
// The run prints its seed: FUZZ_SEED=<seed> generates the same requests again.
// POST /v1/in/{inboundKey} needs signatures schemathesis cannot make; test/api/unstorable-text.test.ts covers it.

const hooksFile = fileURLToPath(new URL('./schemathesis_hooks.py', import.meta.url));
const receivers: EndpointFixture[] = [];

const toml = (value: string) => JSON.stringify(value);

/** Real records of one account, so every path and query id names something that exists. */
async function provision(account: TestAccount) {
  const token = account.apiKey;
  const messageId = await newMessage(account);
  const job = await newJob(account);
  ok(await call('POST', `/job/executeJob?id=${job.id}`, { token }));
  const file = ok(await call('POST', `/job/recording?id=${job.id}`, { token, body: { fileId: (await readyFile(account)).fileId } }), 201);
  const stockFile = await readyFile(account);
  const stock = ok(await call('POST', '/stock/create', { token, body: { appId: account.appId, title: 'Jingle', fileId: stockFile.fileId } }), 201);
  const [, playedName] = /\/recordings\/[^/]+\/([^/]+)$/.exec(stockFile.url as string) ?? [];
  const visitor = ok(await call('POST', `/accounts/${account.accountId}/visitors`, { token, body: { clientUserId: 'fuzz-user' } }), 201);
  const connection = await newConnection(account);
  const spareConnection = await newConnection(account, { label: 'deleted by the fuzzer' });
  const endpoint = await newEndpoint(account);
  const spareEndpoint = await newEndpoint(account);
  receivers.push(endpoint, spareEndpoint);
  const delivery = await waitForFinishedDelivery(account, endpoint.endpointId, await sendTest(account, endpoint.endpointId));
  // An experience with a live run (waiting for an event that never comes), and a spare to archive.
  const waiting = experienceDefinition({
    nodes: [
      { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 3600, next: 'done', timeoutNext: 'done' },
      { id: 'done', type: 'exit' },
    ],
  });
  const experience = await publishedExperience(account, waiting);
  const spareExperience = await publishedExperience(account, { ...waiting, trigger: { eventType: 'spare.signup', conditions: null } });
  ok(await postSigned(connection, directEvent({ eventType: 'signup', clientUserId: 'fuzz-user' })), 202);
  const [run] = await waitForRuns(account, experience.experienceId, (runs) => runs.length === 1);
  const device = ok(await call('POST', '/device/register', { token, body: { appId: account.appId, token: 'fuzz-device', platform: 'ios' } }), 201);
  const spareDevice = ok(await call('POST', '/device/register', { token, body: { appId: account.appId, token: 'fuzz-spare', platform: 'web' } }), 201);
  const segment = ok(await call('POST', '/filter/create', { token, body: { appId: account.appId, name: 'fuzz', rules: { all: [] } } }), 201);
  const abTest = ok(await call('POST', '/abtest/create', { token, body: { appId: account.appId, abTestName: 'fuzz', filterId: segment.id } }), 201);
  const spareAbTest = ok(await call('POST', '/abtest/create', { token, body: { appId: account.appId, abTestName: 'cancelled by the fuzzer' } }), 201);
  return {
    messageId,
    jobId: job.id as string,
    fileId: file.fileId as string,
    stockFileId: stockFile.fileId as string,
    playedName: playedName!,
    stockId: stock.stockId as string,
    visitorId: visitor.visitorId as string,
    connection,
    spareConnectionId: spareConnection.connectionId,
    endpointId: endpoint.endpointId,
    spareEndpointId: spareEndpoint.endpointId,
    deliveryId: delivery.deliveryId as string,
    experienceId: experience.experienceId as string,
    spareExperienceId: spareExperience.experienceId as string,
    runId: run.runId as string,
    deviceId: device.deviceId as string,
    spareDeviceId: spareDevice.deviceId as string,
    segmentId: segment.id as string,
    abTestId: abTest.id as string,
    spareAbTestId: spareAbTest.id as string,
  };
}

function config(apiUrl: string, account: TestAccount, ids: Awaited<ReturnType<typeof provision>>): string {
  const operation = (operationIds: string[], parameters: Record<string, string>) =>
    [
      '[[operations]]',
      `include-operation-id = [${operationIds.map(toml).join(', ')}]`,
      `parameters = { ${Object.entries(parameters).map(([name, value]) => `${toml(name)} = ${toml(value)}`).join(', ')} }`,
      '',
    ].join('\n');
  return [
    `base-url = ${toml(apiUrl)}`,
    `hooks = ${toml(hooksFile)}`,
    // Two workers: while one waits for an answer, the other generates. (One was used while Hypothesis parsed every
    // dependency's source for constants, in each thread: Python 3.11's parser is not thread-safe, "AST constructor
    // recursion depth mismatch". Under site-packages it parses none; a SystemError left is the fuzzer's own.)
    'workers = 2',
    'continue-on-failure = true',
    '',
    '[generation]',
    // Bounded: the work is fixed, 2 to 3 minutes of it on 2 cores alone, 7 to 8 beside the suite's other files.
    'max-examples = 20',
    'database = "none"',
    '',
    '[checks]',
    'enabled = false',
    'not_a_server_error.enabled = true',
    '',
    '[phases.stateful]',
    'max-steps = 10',
    '',
    '[auth.openapi.apiKey]',
    `bearer = ${toml(account.apiKey)}`,
    '[auth.openapi.adminToken]',
    `bearer = ${toml(inject('adminToken'))}`,
    '',
    '[parameters]',
    `"path.accountId" = ${toml(account.accountId)}`,
    `"path.endpointId" = ${toml(ids.endpointId)}`,
    `"path.connectionId" = ${toml(ids.connection.connectionId)}`,
    `"path.inboundKey" = ${toml(ids.connection.inboundKey)}`,
    `"path.deliveryId" = ${toml(ids.deliveryId)}`,
    `"path.visitorId" = ${toml(ids.visitorId)}`,
    `"query.file_id" = ${toml(ids.fileId)}`,
    `"query.stockId" = ${toml(ids.stockId)}`,
    `"path.experienceId" = ${toml(ids.experienceId)}`,
    `"path.runId" = ${toml(ids.runId)}`,
    '',
    operation(['getNotification'], { 'query.id': ids.messageId }),
    operation(['executeJob', 'submitRecording', 'acceptJob', 'cancelJob', 'getJob', 'listJobFiles'], { 'query.id': ids.jobId }),
    operation(['getFile'], { 'query.id': ids.stockFileId }),
    operation(['uploadFile'], { 'query.appId': account.appId }),
    operation(['playRecording'], { 'path.fileId': ids.stockFileId, 'path.name': ids.playedName }),
    operation(['getDevice', 'unsubscribeDevice'], { 'query.id': ids.deviceId }),
    operation(['listDevices', 'listSegments'], { 'query.appId': account.appId }),
    operation(['getSegment'], { 'query.id': ids.segmentId }),
    operation(['getAbTest', 'validateAbTest', 'validateAbTestPut', 'scheduleAbTest', 'scheduleAbTestPut'], { 'query.id': ids.abTestId, 'query.appId': account.appId }),
    operation(['listAbTests'], { 'query.appId': account.appId }),
    operation(['listPushSends'], { 'query.abTestId': ids.abTestId }),
    operation(['cancelAbTest'], { 'query.id': ids.spareAbTestId, 'query.appId': account.appId }),
    // Deleting the shared records would turn every later request into a 404; these delete spares instead.
    operation(['deleteEndpoint'], { 'path.endpointId': ids.spareEndpointId }),
    operation(['deleteConnection'], { 'path.connectionId': ids.spareConnectionId }),
    operation(['deleteDevice'], { 'query.id': ids.spareDeviceId }),
    operation(['archiveExperience'], { 'path.experienceId': ids.spareExperienceId }),
  ].join('\n');
}

afterAll(async () => {
  await Promise.all(receivers.map((endpoint) => endpoint.receiver.close()));
});

/**
 * The work is fixed, so its time is how busy the machine is: 437 s beside the flow crash test, and once more than 480
 * s. The timeout is there to catch a hang, not a slow run.
 */
const fuzzTimeoutMs = 900_000;

describe('schemathesis against the running service', () => {
  it('finds no 5xx in any operation (examples, coverage, fuzzing and stateful phases)', async ({ signal }) => {
    const schemathesis = await provideSchemathesis();
    const seed = fuzzSeed();
    process.stderr.write(`[schemathesis] seed ${seed}: ${fuzzSeedVariable}=${seed} generates this run's requests again\n`);
    const account = await newAccount('fuzz');
    const ids = await provision(account);
    const workDir = await mkdtemp(join(tmpdir(), 'rp-schemathesis-'));
    try {
      await writeFile(join(workDir, 'schemathesis.toml'), config(inject('apiUrl'), account, ids));
      const result = await schemathesis.run(
        // An experience definition is a deep schema: most of what the generator draws for it is filtered out, and on a
        // busy machine drawing it is slow. Both are notes about generation, not about the service.
        ['--no-color', 'run', `${inject('apiUrl')}/openapi.json`, '--phases', 'examples,coverage,fuzzing,stateful', '--suppress-health-check', 'filter_too_much,too_slow', '--seed', String(seed), ...reportArgs(workDir)],
        workDir,
        signal,
      );
      const verdict = await judgeReportedRun(result.exitCode, workDir);
      for (const refused of verdict.clientErrors) process.stderr.write(`[schemathesis] not sent, refused by its own HTTP client (${refused.label}, ${refused.phase}): ${refused.type}: ${refused.message}\n`);
      // The report names each failing operation, the response and a curl command that reproduces it.
      const report = `${fuzzSeedVariable}=${seed} replays this run.\n${result.output}`;
      expect(verdict.incomplete, report).toBeUndefined();
      expect(verdict.failures, report).toEqual([]);
      expect(verdict.serviceErrors, report).toEqual([]);
      // Every operation of the document was tested, none skipped.
      const [, total] = /Selected: \d+\/(\d+)/.exec(result.output) ?? [];
      expect(result.output).toContain(`Tested: ${total}`);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }, fuzzTimeoutMs);
});
