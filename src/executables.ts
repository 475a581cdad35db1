import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** Finding a binary the service runs (ffmpeg; in development also the Temporal CLI): one home for both. */

/** A regular file this user may execute. */
export async function isExecutable(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `name` would be in each PATH directory, in PATH order. */
export function pathCandidates(name: string, env: NodeJS.ProcessEnv): string[] {
  return (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
}
