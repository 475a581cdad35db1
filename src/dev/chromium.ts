import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { isExecutable, pathCandidates } from '../executables.ts';
import { cacheRoot } from './cli-path.ts';
import { firstExecutable, ToolMissingError } from './provision-cli.ts';

/**
 * The Chromium the console's tests drive, found the way the Temporal CLI is (src/dev/provision-cli.ts): CHROMIUM_PATH,
 * else `chromium` on PATH, else the headless Chromium that the npm package @sparticuz/chromium ships (a
 * devDependency), unpacked once into the per-user cache. The package's own `executablePath()` unpacks into
 * `/tmp/chromium` in place and uses any file of that name: test files starting side by side could run a half-written
 * binary, and an older package's would be used unseen. So its packed binary is unpacked here instead, into a staging
 * file renamed into `~/.cache/richpush/chromium-<version>/chromium` when complete.
 */

export interface ChromiumDeps {
  env: NodeJS.ProcessEnv;
  isExecutable: (path: string) => Promise<boolean>;
  /** The packed binary the package ships and its version; undefined when the package is not installed. */
  bundled(): Promise<{ packed: string; version: string } | undefined>;
  /** Unpacks `packed` into `target` (complete or not at all). */
  unpack(packed: string, target: string): Promise<void>;
  progress(line: string): void;
}

/** The flags every launch takes: headless, no sandbox (root, containers), and nothing that calls Google. */
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const packageName = '@sparticuz/chromium';

export async function findChromium(deps: ChromiumDeps): Promise<string> {
  const say = (text: string) => deps.progress(`Chromium: ${text}`);
  const supplied = deps.env.CHROMIUM_PATH;
  if (supplied) {
    if (await deps.isExecutable(supplied)) return supplied;
    throw new ToolMissingError(`CHROMIUM_PATH is ${supplied}, which is not an executable file.`);
  }
  const onPath = await firstExecutable(pathCandidates('chromium', deps.env), deps.isExecutable);
  if (onPath) return onPath;

  const bundled = await deps.bundled();
  if (!bundled) {
    throw new ToolMissingError(`No Chromium: CHROMIUM_PATH is unset, no chromium is on PATH, and ${packageName} is not installed (npm ci installs it).`);
  }
  const target = join(cacheRoot(deps.env), `chromium-${bundled.version}`, 'chromium');
  if (await deps.isExecutable(target)) return target;
  say(`unpacking ${packageName} ${bundled.version} into ${dirname(target)} (once for this user)`);
  await deps.unpack(bundled.packed, target);
  return target;
}

/** Where the package keeps its packed binary (`bin/chromium.br`), and its version. */
async function bundledChromium(): Promise<{ packed: string; version: string } | undefined> {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(packageName);
  } catch {
    return undefined;
  }
  const root = join(dirname(entry), '..');
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
  return { packed: join(root, 'bin', 'chromium.br'), version };
}

/** Brotli-decompresses into a staging file beside `target`, then renames it into place in one step. */
async function unpackBrotli(packed: string, target: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const staging = await mkdtemp(join(dirname(target), '.unpacking-'));
  try {
    const file = join(staging, 'chromium');
    await pipeline(createReadStream(packed), createBrotliDecompress(), createWriteStream(file));
    await chmod(file, 0o755);
    await rename(file, target);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Chromium on this machine, found or unpacked. */
export function findChromiumOnThisMachine(progress: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return findChromium({ env, isExecutable, bundled: bundledChromium, unpack: unpackBrotli, progress });
}
