import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { MediaUnavailableError } from './errors.ts';
import type { Ffmpeg } from './find-ffmpeg.ts';

/** One ffmpeg run: its arguments (after the common ones), and what the caller wants back while it runs. */
export interface FfmpegRun {
  args: string[];
  /** Aborting kills ffmpeg at once (SIGKILL) and rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** How far ffmpeg has got, in microseconds of output, from its `-progress` report (about twice a second). */
  onTime?: ((microseconds: number) => void) | undefined;
  /** The bytes ffmpeg writes to `pipe:1` (decoded audio, for the waveform). */
  onStdout?: ((chunk: Buffer) => void) | undefined;
}

export interface FfmpegOutcome {
  exitCode: number;
  /** What ffmpeg logged (its last 512 KiB when it logged more): stream info, loudnorm's report, errors. */
  log: string;
}

/** ffmpeg's log is small; a file whose every packet fails could make it large, and only its end is read. */
const logKeptBytes = 512 * 1024;

/**
 * Runs ffmpeg without a shell, reading no stdin, with the progress report on file descriptor 3 so that stdout stays
 * free for decoded audio. Resolves with the exit code and log (a failing ffmpeg is the caller's to judge), rejects on
 * abort, and with MediaUnavailableError when the binary cannot be started at all.
 */
export function runFfmpeg(ffmpeg: Ffmpeg, run: FfmpegRun): Promise<FfmpegOutcome> {
  run.signal?.throwIfAborted();
  const progressArgs = run.onTime ? ['-progress', 'pipe:3', '-stats_period', '0.5'] : [];
  const child = spawn(ffmpeg.path, ['-nostdin', '-hide_banner', '-nostats', ...progressArgs, ...run.args], {
    stdio: ['ignore', run.onStdout ? 'pipe' : 'ignore', 'pipe', run.onTime ? 'pipe' : 'ignore'],
  });
  let log = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    log += text;
    if (log.length > 2 * logKeptBytes) log = log.slice(-logKeptBytes);
  });
  if (run.onStdout) child.stdout?.on('data', run.onStdout);
  if (run.onTime) readProgress(child.stdio[3] as Readable, run.onTime);

  const kill = () => child.kill('SIGKILL');
  run.signal?.addEventListener('abort', kill, { once: true });
  return new Promise<FfmpegOutcome>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EACCES') reject(new MediaUnavailableError(`ffmpeg at ${ffmpeg.path} cannot be started (${error.code}).`, { cause: error }));
      else reject(error);
    });
    child.once('close', (code, signal) => {
      run.signal?.removeEventListener('abort', kill);
      if (run.signal?.aborted) reject(run.signal.reason as Error);
      else resolve({ exitCode: code ?? (signal ? 128 : 1), log: log.slice(-logKeptBytes) });
    });
  });
}

/** `-progress` writes blocks of `key=value` lines; `out_time_us` says how far the output has got. */
function readProgress(stream: Readable, onTime: (microseconds: number) => void): void {
  let pending = '';
  stream.setEncoding('utf8').on('data', (text: string) => {
    const lines = (pending + text).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^out_time_us=(\d+)/.exec(line);
      if (match) onTime(Number(match[1]));
    }
  });
}

/**
 * The first thing ffmpeg's log complains of ("moov atom not found"), without its `[in#0 @ 0x…]` prefix and never a
 * line that names a path, so that it may go into a rejection's detail.
 */
export function ffmpegComplaint(log: string): string {
  const lines = log
    .split('\n')
    .map((line) => line.replace(/^\[[^\]]*\]\s*/, '').trim())
    // Paths stay out, and so do metadata lines (`title : …`), which hold the uploader's own text.
    .filter((line) => line && !line.includes('file:') && !line.includes('/') && !/^\S+\s+: /.test(line));
  const complaint = lines.find((line) => /error|invalid|corrupt|not found|failed|cannot|missing/i.test(line));
  return complaint?.replace(/^Error opening input: /, '') ?? 'ffmpeg gave no reason';
}
