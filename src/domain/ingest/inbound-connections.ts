import type { EntityManager } from '@mikro-orm/postgresql';
import { Connection, type EventConfig } from '../../persistence/entities/connection.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { secretContexts } from '../secrets/secret-contexts.ts';

/** What the ingest path needs of a connection, with its signing secrets already opened. */
export interface InboundConnection {
  id: string;
  accountId: string;
  provider: string;
  status: Connection['status'];
  mapping: Record<string, string>;
  eventConfig: EventConfig;
  /** The current secret, then the previous one while its overlap lasts (`previousExpiresAt`). */
  secrets: { current: string; previous: string | undefined; previousExpiresAt: Date | undefined };
}

export interface InboundConnections {
  /** The live connection behind an inbound key, or undefined: at most `ttlMs` old. */
  find(em: EntityManager, inboundKey: string): Promise<InboundConnection | undefined>;
  /** Drops the connection's entry at once: this instance changed it (pause, delete, rotation, new limits). */
  forget(connectionId: string): void;
}

/** How long an instance trusts what it read: a pause, delete or rotation made elsewhere takes effect within it. */
export const inboundConnectionTtlMs = 1000;
const maxEntries = 1000;

interface Entry {
  loaded: Promise<InboundConnection | undefined>;
  readAt: number;
  connectionId: string | undefined;
}

/**
 * A per-instance cache of connections by inbound key (docs/adr/0033-ingest-reads-postgres-once-per-request.md): the row and its opened secrets are read once per
 * `ttlMs` per key instead of once per request, and concurrent requests share one read. Bounded and least recently
 * used first out. Unknown keys are not remembered, so a flood of made-up keys cannot push the live ones out.
 */
export function createInboundConnections(secrets: SecretBox, ttlMs = inboundConnectionTtlMs): InboundConnections {
  const entries = new Map<string, Entry>();

  const load = async (em: EntityManager, inboundKey: string): Promise<InboundConnection | undefined> => {
    const row = await em.findOne(Connection, { inboundKey, deletedAt: null });
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.accountId,
      provider: row.provider,
      status: row.status,
      mapping: row.mapping,
      eventConfig: row.eventConfig,
      secrets: {
        current: secrets.open(row.signingSecretSealed, secretContexts.connectionSigning(row.id)),
        previous:
          row.previousSigningSecretSealed && row.previousSigningSecretExpiresAt
            ? secrets.open(row.previousSigningSecretSealed, secretContexts.connectionSigning(row.id))
            : undefined,
        previousExpiresAt: row.previousSigningSecretExpiresAt ?? undefined,
      },
    };
  };

  return {
    async find(em, inboundKey) {
      const now = Date.now();
      const cached = entries.get(inboundKey);
      if (cached && now - cached.readAt < ttlMs) {
        // Most recently used goes last.
        entries.delete(inboundKey);
        entries.set(inboundKey, cached);
        return cached.loaded;
      }
      const entry: Entry = { loaded: load(em, inboundKey), readAt: now, connectionId: undefined };
      entries.delete(inboundKey);
      entries.set(inboundKey, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      try {
        const connection = await entry.loaded;
        if (connection) entry.connectionId = connection.id;
        else if (entries.get(inboundKey) === entry) entries.delete(inboundKey);
        return connection;
      } catch (error) {
        if (entries.get(inboundKey) === entry) entries.delete(inboundKey);
        throw error;
      }
    },
    forget(connectionId) {
      // A read still under way may have seen the row before the change: it goes too.
      for (const [key, entry] of entries) if (entry.connectionId === connectionId || entry.connectionId === undefined) entries.delete(key);
    },
  };
}

/** The secrets a signature may use at `now`: the current one, and the previous one during its overlap. */
export function signingSecretsAt(connection: InboundConnection, now: Date): string[] {
  const { current, previous, previousExpiresAt } = connection.secrets;
  return previous && previousExpiresAt && previousExpiresAt > now ? [current, previous] : [current];
}
