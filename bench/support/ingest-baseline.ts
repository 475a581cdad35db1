import { createServer, type Server, type ServerResponse } from 'node:http';
import pg from 'pg';
import { newId } from '../../src/security/ids.ts';
import { verifyWebhook } from '../../src/security/standard-webhooks.ts';
import { ingestWorkflowId } from '../../workflows/ingest-event.contract.ts';

/** What the bare server knows about a connection, held in memory: no lookup, no decryption. */
export interface BaselineConnection {
  accountId: string;
  /** The connection id its rows are written under. */
  connectionId: string;
  /** The `whsec_…` secret the posts are signed with. */
  secret: string;
}

export interface IngestBaselineServer {
  origin: string;
  close: () => Promise<void>;
}

// The same statement the service's storeInboundEvent issues (MikroORM's insert … on conflict do nothing), as one
// autocommitted statement.
const insertSql = `insert into "inbound_events" ("id", "account_id", "connection_id", "message_id", "event_type", "occurred_at",
  "client_user_id", "attributes", "endpoints", "raw", "status", "workflow_id", "created_at")
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'RECEIVED', $11, $12)
  on conflict ("connection_id", "message_id") do nothing`;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(' ') : value);

/**
 * The least a signed ingest endpoint can do: `POST /v1/in/{inboundKey}` on a bare node:http server finds the
 * connection in a Map, checks the Standard Webhooks signature with `verifyWebhook`, parses the JSON, inserts the
 * row into `inbound_events` through a plain `pg.Pool`, and answers 202 `{ messageId, eventId }`. No framework, no
 * ORM, no rate limit, no schema validation, no transaction, no workflow.
 */
export async function startIngestBaseline(options: {
  databaseUrl: string;
  poolMax: number;
  connections: ReadonlyMap<string, BaselineConnection>;
}): Promise<IngestBaselineServer> {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolMax });
  pool.on('error', () => {
    // An idle client lost its connection; the next query reconnects.
  });
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const match = /^\/v1\/in\/([^/?]+)$/.exec(req.url ?? '');
        const connection = match && req.method === 'POST' ? options.connections.get(match[1]!) : undefined;
        if (!connection) return answer(res, 404, { error: 'not_found' });
        const raw = Buffer.concat(chunks);
        const id = header(req.headers['webhook-id']);
        const verdict = verifyWebhook({
          headers: { id, timestamp: header(req.headers['webhook-timestamp']), signature: header(req.headers['webhook-signature']) },
          body: raw,
          secrets: [connection.secret],
        });
        if (!verdict.ok) return answer(res, 401, { error: verdict.reason });
        let event: { messageId: string; eventType: string; occurredAt: string; clientUserId?: string; attributes?: Record<string, unknown> };
        try {
          event = JSON.parse(raw.toString('utf8')) as typeof event;
        } catch {
          return answer(res, 400, { error: 'invalid_json' });
        }
        const eventId = newId('iev_');
        try {
          await pool.query(insertSql, [
            eventId,
            connection.accountId,
            connection.connectionId,
            event.messageId,
            event.eventType,
            new Date(event.occurredAt),
            event.clientUserId ?? null,
            event.attributes === undefined ? null : JSON.stringify(event.attributes),
            null,
            null,
            ingestWorkflowId(connection.connectionId, event.messageId),
            new Date(),
          ]);
        } catch {
          return answer(res, 503, { error: 'database_unavailable' });
        }
        return answer(res, 202, { messageId: event.messageId, eventId });
      })();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await pool.end();
    },
  };
}
