import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { InlineConfig } from 'vite';
import { consoleSourceHashFile, defaultConsoleDir } from '../http/console-files.ts';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const consoleSourceDir = join(repositoryRoot, 'console');

/**
 * What the build depends on besides console/: the locked package versions, and this file, which holds the Vite
 * configuration. A change to any of them means a new build.
 */
const otherInputs = ['package-lock.json', 'src/dev/console-build.ts'];

/**
 * Vite's configuration for the console, here rather than in a vite.config.ts so that it is type-checked with the
 * service's Node code. `base` is where the API serves it; small assets are never inlined as data: URLs, which the
 * console's Content-Security-Policy (`default-src 'self'`) would refuse.
 */
export async function consoleViteConfig(outDir: string): Promise<InlineConfig> {
  const { default: react } = await import('@vitejs/plugin-react');
  return {
    configFile: false,
    root: consoleSourceDir,
    base: '/console/',
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir, emptyOutDir: true, assetsInlineLimit: 0, target: 'es2022', reportCompressedSize: false },
  };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Files under console/ that are no source: the type check's incremental state (git-ignored), editors' dotfiles. */
const notSource = (path: string, sourceDir: string) => path.endsWith('.tsbuildinfo') || /(^|\/)\./.test(relative(sourceDir, path));

/** SHA-256 over the console's sources (each file's path and bytes, in a fixed order) and the build's other inputs. */
export async function hashConsoleSources(sourceDir: string = consoleSourceDir): Promise<string> {
  const sources = (await filesUnder(sourceDir)).filter((path) => !notSource(path, sourceDir)).map((path) => ({ path, name: `console/${relative(sourceDir, path)}` }));
  const others = otherInputs.map((name) => ({ path: join(repositoryRoot, name), name }));
  const files = [...sources, ...others].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const hash = createHash('sha256');
  for (const { path, name } of files) hash.update(`${name}\0`).update(await readFile(path)).update('\0');
  return hash.digest('hex');
}

/** Each script and stylesheet also as `<name>.gz`, which the API sends to browsers that accept gzip. */
async function precompress(outDir: string): Promise<void> {
  const compress = promisify(gzip);
  for (const path of await filesUnder(join(outDir, 'assets'))) {
    if (/\.(js|css|svg)$/.test(path)) await writeFile(`${path}.gz`, await compress(await readFile(path), { level: 9 }));
  }
}

/**
 * Builds the console into a staging folder beside `outDir`, then puts it in place in one rename (after moving the
 * old build aside), so a server never reads a half-written build and two builds at once both end complete.
 */
export async function buildConsole(outDir: string = defaultConsoleDir, sourceHash?: string): Promise<void> {
  const { build } = await import('vite');
  const hash = sourceHash ?? (await hashConsoleSources());
  const staging = join(dirname(outDir), `.console-${randomBytes(6).toString('hex')}`);
  const old = `${staging}-old`;
  try {
    await build(await consoleViteConfig(staging));
    await precompress(staging);
    await writeFile(join(staging, consoleSourceHashFile), `${hash}\n`);
    await rename(outDir, old).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await rename(staging, outDir);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
}

/**
 * Builds the console when its sources changed since the last build (the hash beside the build differs, or there is
 * none), and says so in one line; an up-to-date build is left as it is, silently. `npm start` and the tests' global
 * setup run this before the API listens; production never builds (the image does, once).
 */
export async function ensureConsoleBuilt(progress: (line: string) => void, outDir: string = defaultConsoleDir): Promise<'fresh' | 'built'> {
  const hash = await hashConsoleSources();
  const built = await readFile(join(outDir, consoleSourceHashFile), 'utf8').catch(() => undefined);
  if (built?.trim() === hash) return 'fresh';
  const started = performance.now();
  await buildConsole(outDir, hash);
  progress(`console: ${built === undefined ? 'no build yet' : 'sources changed'}; built ${relative(repositoryRoot, outDir) || outDir} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 'built';
}
