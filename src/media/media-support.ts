import { MediaUnavailableError } from './errors.ts';
import type { Ffmpeg } from './find-ffmpeg.ts';

/** Whether this process can process recordings: its ffmpeg, or the one line that says why not. */
export type MediaSupport = { available: true; ffmpeg: Ffmpeg } | { available: false; reason: string };

/**
 * Settles a lookup of ffmpeg (`findFfmpeg`, or `provisionFfmpeg` in embedded mode and the tests) into what the API and
 * the worker are built with: no ffmpeg is a state they run in, not a reason to stop. Other failures pass.
 */
export async function mediaSupportOf(lookup: Promise<Ffmpeg>): Promise<MediaSupport> {
  try {
    return { available: true, ffmpeg: await lookup };
  } catch (error) {
    if (error instanceof MediaUnavailableError) return { available: false, reason: error.message };
    throw error;
  }
}
