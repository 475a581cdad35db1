import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegTool, provisionFfmpeg } from '../../src/dev/ffmpeg-tool.ts';
import { provisionTool, type ProvisionDeps } from '../../src/dev/provision-cli.ts';
import { MediaUnavailableError } from '../../src/media/errors.ts';
import { findFfmpeg } from '../../src/media/find-ffmpeg.ts';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rp-ffmpeg-lookup-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A shell script that answers as ffmpeg does to `-version`, and to `-h` with whatever `help` says. */
async function fakeFfmpeg(name: string, help: string): Promise<string> {
  const path = join(scratch, name, 'ffmpeg');
  await mkdir(join(scratch, name), { recursive: true });
  await writeFile(path, `#!/bin/sh\ncase "$*" in\n  *-version*) echo "ffmpeg version 0.0-fake Copyright";;\n  *) echo "${help}";;\nesac\n`);
  await chmod(path, 0o755);
  return path;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

describe('ffmpeg in a production process (findFfmpeg)', () => {
  it('takes FFMPEG_PATH, and refuses one that is not executable rather than looking elsewhere', async () => {
    const good = await fakeFfmpeg('full', 'Filter loudnorm / Encoder aac');
    expect(await findFfmpeg({ FFMPEG_PATH: good, PATH: '' })).toEqual({ path: good, version: '0.0-fake' });
    const error = await rejection(findFfmpeg({ FFMPEG_PATH: join(scratch, 'nowhere'), PATH: join(scratch, 'full') }));
    expect(error).toBeInstanceOf(MediaUnavailableError);
    expect(error.message).toBe(`FFMPEG_PATH is ${join(scratch, 'nowhere')}, which is not an executable file.`);
  });

  it('then ffmpeg on PATH, in PATH order', async () => {
    const good = await fakeFfmpeg('second', 'Filter loudnorm / Encoder aac');
    expect((await findFfmpeg({ PATH: [join(scratch, 'empty'), join(scratch, 'second')].join(':') })).path).toBe(good);
  });

  it('rejects, in one line with a code the API answers 503 with, when there is none', async () => {
    const error = await rejection(findFfmpeg({ PATH: join(scratch, 'empty') }));
    expect(error).toMatchObject({ name: 'MediaUnavailableError', code: 'media_unavailable' });
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/^No ffmpeg: FFMPEG_PATH is unset and there is no ffmpeg on PATH/);
  });

  it('refuses an ffmpeg that lacks the loudnorm filter or the AAC encoder', async () => {
    const trimmed = await fakeFfmpeg('trimmed', "Unknown filter 'loudnorm'.");
    const error = await rejection(findFfmpeg({ FFMPEG_PATH: trimmed }));
    expect(error.message).toBe(`ffmpeg 0.0-fake at ${trimmed} lacks the loudnorm filter; use a full build (FFMPEG_PATH).`);
    const noAac = await fakeFfmpeg('no-aac', 'Filter loudnorm');
    expect((await rejection(findFfmpeg({ FFMPEG_PATH: noAac }))).message).toContain('lacks the AAC encoder');
  });
});

describe('ffmpeg for npm start and the tests (provisionFfmpeg)', () => {
  it("knows where the imageio-ffmpeg 0.8.1 wheel puts each platform's build", () => {
    expect(ffmpegTool('linux', 'x64')?.wheelBinary).toBe('imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2');
    expect(ffmpegTool('linux', 'arm64')?.wheelBinary).toBe('imageio_ffmpeg/binaries/ffmpeg-linux-aarch64-v9.0.2');
    expect(ffmpegTool('darwin', 'arm64')?.wheelBinary).toBe('imageio_ffmpeg/binaries/ffmpeg-macos-aarch64-v9.0');
    expect(ffmpegTool('linux', 'ia32')).toBeUndefined();
    expect(ffmpegTool('freebsd', 'x64')).toBeUndefined();
  });

  it('looks where the Temporal CLI is looked for, then installs the wheel with pip', async () => {
    const calls: string[] = [];
    const deps: ProvisionDeps = {
      env: { PATH: '/usr/bin', HOME: '/home/ann' },
      isExecutable: async (path) => (calls.push(`check ${path}`), false),
      sdkDownload: async () => {
        throw new Error('not for ffmpeg');
      },
      registryInstall: async (tool, dir) => (calls.push(`pip ${tool.packageName}==${tool.version} into ${dir}`), `${dir}/${tool.wheelBinary}`),
      progress: () => {},
    };
    const path = await provisionTool(ffmpegTool('linux', 'x64')!, deps);
    expect(path).toBe('/home/ann/.cache/richpush/ffmpeg-0.8.1/imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2');
    expect(calls).toEqual([
      'check /usr/bin/ffmpeg',
      'check /home/ann/.cache/richpush/ffmpeg-0.8.1/imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2',
      'pip imageio-ffmpeg==0.8.1 into /home/ann/.cache/richpush/ffmpeg-0.8.1',
    ]);
  });

  it('says in one line that nothing can be installed on a platform the wheel does not cover', async () => {
    const error = await rejection(provisionFfmpeg(() => {}, { PATH: join(scratch, 'empty') }, 'freebsd', 'x64'));
    expect(error).toBeInstanceOf(MediaUnavailableError);
    expect(error.message).not.toContain('\n');
    expect(error.message).toContain('imageio-ffmpeg 0.8.1 has no ffmpeg for freebsd-x64 (only linux-x64, linux-arm64, darwin-x64, darwin-arm64)');
  });

  it('still takes FFMPEG_PATH there', async () => {
    const good = await fakeFfmpeg('elsewhere', 'Filter loudnorm / Encoder aac');
    expect((await provisionFfmpeg(() => {}, { FFMPEG_PATH: good }, 'freebsd', 'x64')).path).toBe(good);
  });
});
