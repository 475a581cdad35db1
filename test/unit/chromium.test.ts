import { describe, expect, it } from 'vitest';
import { findChromium, type ChromiumDeps } from '../../src/dev/chromium.ts';
import { ToolMissingError } from '../../src/dev/provision-cli.ts';
import { launchChromium } from '../support/console-browser.ts';

/** A machine where the given paths are executables; records what was unpacked and said. */
function machine(env: NodeJS.ProcessEnv, executables: string[], bundled: { packed: string; version: string } | 'not installed' = { packed: '/pkg/bin/chromium.br', version: '153.0.0' }) {
  const present = new Set(executables);
  const unpacked: Array<[string, string]> = [];
  const lines: string[] = [];
  const deps: ChromiumDeps = {
    env,
    isExecutable: async (path) => present.has(path),
    bundled: async () => (bundled === 'not installed' ? undefined : bundled),
    unpack: async (packed, target) => {
      unpacked.push([packed, target]);
      present.add(target);
    },
    progress: (line) => lines.push(line),
  };
  return { deps, unpacked, lines };
}

describe('finding Chromium for the console tests', () => {
  it('takes CHROMIUM_PATH first, and refuses one that is no executable', async () => {
    const { deps } = machine({ CHROMIUM_PATH: '/opt/chrome', PATH: '/usr/bin' }, ['/opt/chrome', '/usr/bin/chromium']);
    expect(await findChromium(deps)).toBe('/opt/chrome');
    const wrong = machine({ CHROMIUM_PATH: '/nowhere', PATH: '/usr/bin' }, ['/usr/bin/chromium']);
    await expect(findChromium(wrong.deps)).rejects.toThrow(new ToolMissingError('CHROMIUM_PATH is /nowhere, which is not an executable file.'));
  });

  it('then a chromium on PATH, then the cached unpack of the package’s, unpacking it once', async () => {
    expect(await findChromium(machine({ PATH: '/a:/usr/bin' }, ['/usr/bin/chromium']).deps)).toBe('/usr/bin/chromium');
    const fresh = machine({ PATH: '/usr/bin', HOME: '/home/me' }, []);
    const target = '/home/me/.cache/richpush/chromium-153.0.0/chromium';
    expect(await findChromium(fresh.deps)).toBe(target);
    expect(fresh.unpacked).toEqual([['/pkg/bin/chromium.br', target]]);
    expect(fresh.lines).toEqual(['Chromium: unpacking @sparticuz/chromium 153.0.0 into /home/me/.cache/richpush/chromium-153.0.0 (once for this user)']);
    expect(await findChromium(fresh.deps)).toBe(target);
    expect(fresh.unpacked).toHaveLength(1);
  });

  it('says what to do when there is none at all', async () => {
    const none = machine({ PATH: '/usr/bin', HOME: '/home/me' }, [], 'not installed');
    await expect(findChromium(none.deps)).rejects.toThrow(/^No Chromium: CHROMIUM_PATH is unset, no chromium is on PATH, and @sparticuz\/chromium is not installed/);
  });

  it('fails, with what to do, when the browser found cannot start', { timeout: 60_000 }, async () => {
    await expect(launchChromium({ ...process.env, CHROMIUM_PATH: '/bin/false' })).rejects.toThrow(/^Chromium at \/bin\/false did not start: .+ set CHROMIUM_PATH/);
  });
});
