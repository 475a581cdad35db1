import { TestWorkflowEnvironment } from '@temporalio/testing';
import { searchAttributes } from '../temporal/search-attributes.ts';
import { temporalCli } from '../temporal/cli-path.ts';
import { provisionOnThisMachine } from '../temporal/provision-cli.ts';

export interface EmbeddedTemporal {
  address: string;
  /** The CLI binary the server runs, for other `temporal` commands. */
  cliPath: string;
  uiUrl: string | undefined;
  stop(): Promise<void>;
}

export interface EmbeddedTemporalOptions {
  namespace: string;
  /** SQLite file that keeps workflow history across restarts; in memory when absent. */
  dbFilename?: string;
  port?: number;
  uiPort?: number;
  /** Where the CLI lookup reports its steps; stderr when absent. */
  progress?: (line: string) => void;
}

/**
 * Runs `temporal server start-dev` with this project's search attributes registered. The CLI is found or installed
 * first (src/temporal/provision-cli.ts).
 */
export async function startEmbeddedTemporal(options: EmbeddedTemporalOptions): Promise<EmbeddedTemporal> {
  const cliPath = await provisionOnThisMachine(temporalCli, options.progress);
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cliPath },
      namespace: options.namespace,
      ip: '127.0.0.1',
      ...(options.port ? { port: options.port } : {}),
      ...(options.dbFilename ? { dbFilename: options.dbFilename } : {}),
      ...(options.uiPort ? { ui: true, uiPort: options.uiPort } : { ui: false }),
      searchAttributes,
      log: { format: 'json', level: 'warn' },
    },
  });
  return {
    address: env.address,
    cliPath,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}
