import { Client, Connection } from '@temporalio/client';

export interface TemporalClients {
  connection: Connection;
  client: Client;
}

/** A lazy connection: the API starts, and answers /readyz with 503, even while Temporal is unreachable. */
export function createTemporalClients(address: string, namespace: string): TemporalClients {
  const connection = Connection.lazy({ address });
  return { connection, client: new Client({ connection, namespace }) };
}

/** Resolves when Temporal answers within the deadline; rejects otherwise. */
export async function pingTemporal(connection: Connection, timeoutMs = 2000): Promise<void> {
  await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
}
