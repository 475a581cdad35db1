import { execFile, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { access, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Schemathesis (a Python tool, on PyPI) is installed once per user into a cache directory and reused by later runs.

const run = promisify(execFile);
const requirement = 'schemathesis==4.32.*';
const cacheDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'richpush-orchestrator', 'schemathesis', '4.32');
// Hypothesis feeds its generator the string constants of every module it takes for the project's own code, which is
// any module whose path has no `site-packages` in it. Installed anywhere else (as `schemathesis-4.32/` was),
// schemathesis's own dependencies count as that, and urllib3's sentinel "@@@SKIP_HEADER@@@" became a generated header
// value that urllib3 then refused to send. Under a `site-packages` directory they are libraries again.
const packagesDir = join(cacheDir, 'site-packages');
const python = process.env.PYTHON || 'python3';

/** The environment variable that fixes the fuzzer's seed, so that a failing run's requests are generated again. */
export const fuzzSeedVariable = 'FUZZ_SEED';

export interface Schemathesis {
  /** Runs `schemathesis <args>` in `cwd` (stopped when `signal` aborts); resolves with its exit code and output. */
  run(args: string[], cwd: string, signal?: AbortSignal): Promise<{ exitCode: number; output: string }>;
}

const env = () => ({ ...process.env, PYTHONPATH: packagesDir, PYTHONDONTWRITEBYTECODE: '1' });
const script = join(packagesDir, 'bin', 'schemathesis');

async function installedVersion(): Promise<string | undefined> {
  try {
    await access(script);
    const { stdout } = await run(python, [script, '--version'], { env: env() });
    return /version (4\.32\.\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

/** Installs into a fresh directory and then renames it, so a run that stops half way leaves nothing half-installed. */
async function install(): Promise<void> {
  const staging = `${cacheDir}.${process.pid}.partial`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    const target = join(staging, 'site-packages');
    await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', target, requirement], {
      maxBuffer: 16 * 1024 * 1024,
    });
    await rm(cacheDir, { recursive: true, force: true });
    await rename(staging, cacheDir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw new Error(`could not install ${requirement} with ${python} -m pip: ${(error as { stderr?: string }).stderr ?? String(error)}`, { cause: error });
  }
}

/** Schemathesis 4.32, installed into the per-user cache when it is not there yet. Prints one progress line. */
export async function provideSchemathesis(): Promise<Schemathesis> {
  const found = await installedVersion();
  if (found) {
    process.stderr.write(`[schemathesis] using ${found} from ${packagesDir}\n`);
  } else {
    process.stderr.write(`[schemathesis] installing ${requirement} into ${packagesDir} (once per user)\n`);
    await install();
    if (!(await installedVersion())) throw new Error(`${requirement} was installed into ${packagesDir} but does not run`);
  }
  return {
    run: (args, cwd, signal) =>
      new Promise((resolve, reject) => {
        const child = spawn(python, [script, ...args], { cwd, env: env(), signal, stdio: ['ignore', 'pipe', 'pipe'] });
        const chunks: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ exitCode: code ?? 1, output: Buffer.concat(chunks).toString('utf8') }));
      }),
  };
}

/** The seed of this run: FUZZ_SEED when set (to replay a run), else a fresh one. */
export function fuzzSeed(value = process.env[fuzzSeedVariable]): number {
  if (value === undefined || value === '') return randomInt(2 ** 48 - 1);
  if (!/^\d{1,15}$/.test(value)) throw new Error(`${fuzzSeedVariable} must be a whole number (the seed a run printed), not ${JSON.stringify(value)}`);
  return Number(value);
}

/** The files schemathesis writes its verdict to: `--report-json-path` and `--report-ndjson-path`. */
export const reportArgs = (dir: string) => ['--report', 'json,ndjson', '--report-json-path', join(dir, 'report.json'), '--report-ndjson-path', join(dir, 'events.ndjson')];

/** An error raised while a request was being made, rather than an answer to it (schemathesis's `NonFatalError`). */
export interface RunError {
  type: string;
  message: string;
  label: string;
  phase: string | null;
}

export interface FuzzVerdict {
  /** Failed checks: answers of the service (a 5xx), each as schemathesis's title with the operations it was seen on. */
  failures: string[];
  /** No answer where one was due: the connection refused or reset, a timeout, a broken response; or an unknown error. */
  serviceErrors: RunError[];
  /** Requests the fuzzer's own HTTP client refused to send (the service never saw them), and Python's own errors. */
  clientErrors: RunError[];
  /** Why the run itself did not complete (schemathesis stopped, crashed, or a hook failed), if it did not. */
  incomplete?: string;
}

/**
 * Errors of the fuzzer's own side: those the HTTP client (requests, urllib3, http.client) raises while it builds a
 * request, before anything is sent (a header value it will not encode or that it reserves, urllib3's SKIP_HEADER; a
 * URL it cannot parse), and Python's own internal errors (SystemError: its parser is not thread-safe in 3.11). Every
 * other error counts against the service: the service did not answer (refused, reset, timed out, sent a broken
 * response), or nobody knows yet, and the seed replays it.
 */
const clientSideErrorTypes = new Set(['ValueError', 'UnicodeEncodeError', 'InvalidHeader', 'InvalidURL', 'LocationParseError', 'LocationValueError', 'SystemError']);

interface JsonReport {
  complete: boolean;
  stop_reason: string;
  failures: Array<{ title: string; code: string; count: number; operations: string[] }>;
  errors: Array<{ title: string; count: number }>;
}

/**
 * What a run found, from its JSON report and its NDJSON events: the service's failures and errors apart from the
 * requests the fuzzer's own client could not send. The exit code alone mixes the two (any error is 1).
 */
export function judgeFuzzRun(exitCode: number, reportJson: string, eventsNdjson: string): FuzzVerdict {
  const report = JSON.parse(reportJson) as JsonReport;
  const serviceErrors: RunError[] = [];
  const clientErrors: RunError[] = [];
  let fatal: string | undefined;
  for (const line of eventsNdjson.split('\n')) {
    if (!line.trim()) continue;
    const event = JSON.parse(line) as Record<string, { value?: { type: string; message: string }; exception?: { type: string; message: string }; label?: string; phase?: string | null }>;
    const [name, body] = Object.entries(event)[0] ?? [];
    if (name === 'FatalError') fatal = `${body?.exception?.type ?? 'error'}: ${body?.exception?.message ?? ''}`;
    if (name !== 'NonFatalError' || !body?.value) continue;
    const error: RunError = { type: body.value.type, message: body.value.message, label: body.label ?? '', phase: body.phase ?? null };
    (clientSideErrorTypes.has(error.type) ? clientErrors : serviceErrors).push(error);
  }
  const failures = report.failures.map((failure) => `${failure.code} ${failure.title} ×${failure.count}: ${failure.operations.join(', ')}`);
  // Exit code 1 is "something was found"; anything else (2: a usage or schema error, a signal) is a broken run.
  const incomplete = fatal ?? (!report.complete || (exitCode !== 0 && exitCode !== 1) ? `stopped (${report.stop_reason}, exit code ${exitCode})` : undefined);
  return { failures, serviceErrors, clientErrors, ...(incomplete ? { incomplete } : {}) };
}

/** Reads the reports `reportArgs(dir)` asked for and judges the run. */
export async function judgeReportedRun(exitCode: number, dir: string): Promise<FuzzVerdict> {
  const read = (file: string) => readFile(join(dir, file), 'utf8');
  try {
    return judgeFuzzRun(exitCode, await read('report.json'), await read('events.ndjson'));
  } catch (error) {
    return { failures: [], serviceErrors: [], clientErrors: [], incomplete: `no report to read (exit code ${exitCode}): ${String(error)}` };
  }
}
