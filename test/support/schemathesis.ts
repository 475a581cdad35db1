import { execFile, spawn } from 'node:child_process';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Schemathesis (a Python tool, on PyPI) is installed once per user into a cache directory and reused by later runs.

const run = promisify(execFile);
const requirement = 'schemathesis==4.32.*';
const cacheDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'richpush-orchestrator', 'schemathesis-4.32');
const python = process.env.PYTHON || 'python3';

export interface Schemathesis {
  /** Runs `schemathesis <args>` in `cwd` (stopped when `signal` aborts); resolves with its exit code and output. */
  run(args: string[], cwd: string, signal?: AbortSignal): Promise<{ exitCode: number; output: string }>;
}

const env = () => ({ ...process.env, PYTHONPATH: cacheDir, PYTHONDONTWRITEBYTECODE: '1' });
const script = join(cacheDir, 'bin', 'schemathesis');

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
    await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', '--target', staging, requirement], {
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
    process.stderr.write(`[schemathesis] using ${found} from ${cacheDir}\n`);
  } else {
    process.stderr.write(`[schemathesis] installing ${requirement} into ${cacheDir} (once per user)\n`);
    await install();
    if (!(await installedVersion())) throw new Error(`${requirement} was installed into ${cacheDir} but does not run`);
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
