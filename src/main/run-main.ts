import { flushCompileCache } from 'node:module';
import { ConfigError } from '../config.ts';

/**
 * Runs an entry point. A configuration problem ends the start with its one line; a first SIGINT/SIGTERM runs the
 * graceful shutdown, a second forces the exit.
 */
export function runMain(main: () => Promise<(() => Promise<void>) | void>): void {
  let shuttingDown = false;
  main()
    .then((shutdown) => {
      // With NODE_COMPILE_CACHE set, the code compiled to start is on disk now, not only at a clean exit: a process
      // killed later still spares the next start that work.
      flushCompileCache();
      if (!shutdown) return;
      const onSignal = (signal: NodeJS.Signals) => {
        if (shuttingDown) {
          process.stderr.write(`${signal} again: exiting now\n`);
          process.exit(130);
        }
        shuttingDown = true;
        shutdown().then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    })
    .catch((error: unknown) => {
      process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `start failed: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    });
}
