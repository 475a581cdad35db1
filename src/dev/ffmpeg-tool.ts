import { MediaUnavailableError } from '../media/errors.ts';
import { ffmpegAt, findFfmpeg, type Ffmpeg } from '../media/find-ffmpeg.ts';
import type { ProvisionedTool } from './cli-path.ts';
import { provisionOnThisMachine, ToolMissingError } from './provision-cli.ts';

/**
 * The static ffmpeg (9.0) that PyPI's imageio-ffmpeg wheel ships, one build per platform under a name of its own.
 * The wheel has no ffprobe; the toolkit probes with ffmpeg itself. Keyed by Node's `${process.platform}-${process.arch}`.
 */
const wheelVersion = '0.8.1';
const wheelBinaries: Record<string, string> = {
  'linux-x64': 'imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2',
  'linux-arm64': 'imageio_ffmpeg/binaries/ffmpeg-linux-aarch64-v9.0.2',
  'darwin-x64': 'imageio_ffmpeg/binaries/ffmpeg-macos-x86_64-v9.0.2',
  'darwin-arm64': 'imageio_ffmpeg/binaries/ffmpeg-macos-aarch64-v9.0',
};

/** ffmpeg as a provisioned tool on this platform; undefined where the wheel has no build for it. */
export function ffmpegTool(platform: string = process.platform, arch: string = process.arch): ProvisionedTool | undefined {
  const wheelBinary = wheelBinaries[`${platform}-${arch}`];
  return wheelBinary === undefined ? undefined : { label: 'ffmpeg', binary: 'ffmpeg', envVar: 'FFMPEG_PATH', packageName: 'imageio-ffmpeg', version: wheelVersion, wheelBinary };
}

/**
 * ffmpeg for `npm start` and the tests, found the way the Temporal CLI is (ADR 0010): FFMPEG_PATH, `ffmpeg` on
 * PATH, a copy in the per-user cache, else `pip install imageio-ffmpeg==0.8.1` into that cache, once. Rejects with
 * a one-line MediaUnavailableError when none can be had (on a platform the wheel does not cover, say).
 */
export async function provisionFfmpeg(progress?: (line: string) => void, env: NodeJS.ProcessEnv = process.env, platform = process.platform, arch = process.arch): Promise<Ffmpeg> {
  const tool = ffmpegTool(platform, arch);
  if (!tool) {
    return findFfmpeg(env).catch((error: unknown) => {
      const supported = Object.keys(wheelBinaries).join(', ');
      throw new MediaUnavailableError(
        `${(error as Error).message} imageio-ffmpeg ${wheelVersion} has no ffmpeg for ${platform}-${arch} (only ${supported}), so none can be installed here.`,
        { cause: error },
      );
    });
  }
  try {
    return await ffmpegAt(await provisionOnThisMachine(tool, progress, env));
  } catch (error) {
    if (error instanceof ToolMissingError) throw new MediaUnavailableError(error.message, { cause: error });
    throw error;
  }
}
