import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Logger } from '../logger.ts';
import { searchAttributes } from '../temporal/search-attributes.ts';
import { findTemporalCli } from '../temporal/cli-path.ts';

export interface EmbeddedTemporal {
  address: string;
  uiUrl: string | undefined;
  stop(): Promise<void>;
}

export interface EmbeddedTemporalOptions {
  namespace: string;
  /** SQLite file that keeps workflow history across restarts; in memory when absent. */
  dbFilename?: string;
  port?: number;
  uiPort?: number;
  cliPath?: string | undefined;
  logger: Logger;
}

/**
 * Runs `temporal server start-dev` with this project's search attributes registered. The binary is the one given,
 * else `temporal` on PATH, else the SDK downloads one (which needs internet).
 */
export async function startEmbeddedTemporal(options: EmbeddedTemporalOptions): Promise<EmbeddedTemporal> {
  const cliPath = options.cliPath ?? findTemporalCli();
  if (!cliPath) options.logger.warn('no Temporal CLI found on TEMPORAL_CLI_PATH or PATH; the SDK will try to download one');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ...(cliPath ? { executable: { type: 'existing-path', path: cliPath } } : {}),
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
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}
