import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The Temporal CLI to run: TEMPORAL_CLI_PATH when set, else `temporal` on PATH, else none. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.TEMPORAL_CLI_PATH) return env.TEMPORAL_CLI_PATH;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'temporal');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
