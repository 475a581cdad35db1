import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The Temporal CLI to run: TEMPORAL_CLI_PATH when set, else `temporal` on PATH, else none. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.TEMPORAL_CLI_PATH || findOnPath('temporal', env);
}

/** The time-skipping test server: TEMPORAL_TEST_SERVER_PATH when set, else `temporal-test-server` on PATH. */
export function findTemporalTestServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.TEMPORAL_TEST_SERVER_PATH || findOnPath('temporal-test-server', env);
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
