import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { isExecutable, pathCandidates } from '../executables.ts';
import { MediaUnavailableError } from './errors.ts';

/** An ffmpeg binary that runs and has what processing needs. Every function of this module takes one. */
export interface Ffmpeg {
  path: string;
  /** As it names itself, e.g. `n9.0.2-17-g2a571b6068-20260930` or `6.1.1-3ubuntu5`. */
  version: string;
}

/**
 * The ffmpeg of a production process: FFMPEG_PATH, else `ffmpeg` on PATH; checked to run and to have the loudnorm
 * filter and the AAC encoder. Rejects with a one-line MediaUnavailableError. It installs nothing: `npm start` and the
 * tests install one into the per-user cache (provisionFfmpeg in src/dev/ffmpeg-tool.ts), an image ships its own.
 */
export async function findFfmpeg(env: NodeJS.ProcessEnv = process.env): Promise<Ffmpeg> {
  const supplied = env.FFMPEG_PATH;
  if (supplied) {
    if (!(await isExecutable(supplied))) throw new MediaUnavailableError(`FFMPEG_PATH is ${supplied}, which is not an executable file.`);
    return ffmpegAt(supplied);
  }
  for (const candidate of pathCandidates('ffmpeg', env)) {
    if (await isExecutable(candidate)) return ffmpegAt(candidate);
  }
  throw new MediaUnavailableError('No ffmpeg: FFMPEG_PATH is unset and there is no ffmpeg on PATH. Set FFMPEG_PATH to an ffmpeg binary, or install ffmpeg.');
}

/** What processing runs: two-pass loudnorm, and AAC-LC from ffmpeg's own encoder (every build has both, unless trimmed). */
const needed = [
  { help: 'filter=loudnorm', answer: 'Filter loudnorm', what: 'the loudnorm filter' },
  { help: 'encoder=aac', answer: 'Encoder aac', what: 'the AAC encoder' },
];

/** The ffmpeg at `path`, once it has shown that it runs and has what processing needs. */
export async function ffmpegAt(path: string): Promise<Ffmpeg> {
  const run = async (args: string[]) => {
    try {
      const { stdout } = await promisify(execFile)(path, ['-hide_banner', ...args], { timeout: 30_000, maxBuffer: 1024 * 1024 });
      return stdout;
    } catch (error) {
      throw new MediaUnavailableError(`ffmpeg at ${path} does not run: ${firstLine(error)}`, { cause: error });
    }
  };
  const version = /^ffmpeg version (\S+)/.exec(await run(['-version']))?.[1];
  if (!version) throw new MediaUnavailableError(`${path} does not answer -version as ffmpeg does.`);
  for (const { help, answer, what } of needed) {
    if (!(await run(['-h', help])).includes(answer)) throw new MediaUnavailableError(`ffmpeg ${version} at ${path} lacks ${what}; use a full build (FFMPEG_PATH).`);
  }
  return { path, version };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n').find((line) => line.trim())?.trim() ?? 'unknown error';
}
