import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { TemporalAccess } from './access.ts';

export interface TemporalClients {
  connection: Connection;
  client: Client;
}

/**
 * A lazy connection: the API starts, and answers /readyz with 503, even while Temporal is unreachable. A request
 * that needs Temporal while it is down fails within a few seconds (short connect timeout, few gRPC retries), so the
 * caller gets a prompt 503 with Retry-After instead of a hanging request.
 */
export function createTemporalClients(address: string, namespace: string, access: TemporalAccess = {}): TemporalClients {
  const connection = Connection.lazy({
    address,
    ...access,
    connectTimeout: '2 seconds',
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 3 }))],
  });
  return { connection, client: new Client({ connection, namespace }) };
}

/**
 * The worker process's client: over the NativeConnection its workers poll with, so that the runs it starts on their
 * queues can start eagerly (`TemporalAccess.eagerStart`). The connection is the workers'; whoever made it closes it.
 */
export function createWorkerTemporalClient(connection: NativeConnection, namespace: string): Client {
  return new Client({ connection, namespace });
}

/** Resolves when Temporal answers within the deadline; rejects otherwise. */
export async function pingTemporal(connection: Connection, timeoutMs = 2000): Promise<void> {
  await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
}
