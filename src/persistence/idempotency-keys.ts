import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/** How long a key is remembered, from its first use. */
export const keyLifetimeHours = 24;
/**
 * How long one attempt holds a key. An attempt whose process died leaves its row in progress; once the lease has
 * run out, a retry takes the key over and runs the request again.
 */
export const leaseSeconds = 60;

export type Claim =
  /** This attempt runs the request; `operationId` is the same for every attempt under the key. */
  | { outcome: 'run'; operationId: string; owner: string }
  | { outcome: 'replay'; status: number; sealed: string }
  | { outcome: 'reused' }
  | { outcome: 'in_use'; leaseLeftSeconds: number };

interface KeyRow {
  id: string;
  fingerprint: string;
  status: 'in_progress' | 'completed';
  response_status: number | null;
  response_sealed: string | null;
  lease_left: string | number | null;
}

/**
 * Claims `key` in `scope` for a request with this fingerprint. Time is the database's (`now()`), so API instances
 * with skewed clocks agree on leases and expiry. An expired row counts as absent.
 */
export async function claimIdempotencyKey(em: EntityManager, scope: string, key: string, fingerprint: string): Promise<Claim> {
  // A row can vanish between the insert and the read (its attempt failed and released it): then claim again.
  for (let tries = 0; tries < 3; tries++) {
    await em.execute('delete from idempotency_keys where scope = ? and key = ? and expires_at <= now()', [scope, key], 'run');
    const owner = randomUUID();
    const inserted = await em.execute<Array<{ id: string }>>(
      `insert into idempotency_keys (id, scope, key, fingerprint, status, lease_owner, locked_until, created_at, expires_at)
       values (?, ?, ?, ?, 'in_progress', ?, now() + make_interval(secs => ?), now(), now() + make_interval(hours => ?))
       on conflict (scope, key) do nothing returning id`,
      [randomUUID(), scope, key, fingerprint, owner, leaseSeconds, keyLifetimeHours],
    );
    if (inserted[0]) return { outcome: 'run', operationId: inserted[0].id, owner };

    const [row] = await em.execute<KeyRow[]>(
      `select id, fingerprint, status, response_status, response_sealed, extract(epoch from locked_until - now()) as lease_left
       from idempotency_keys where scope = ? and key = ? and expires_at > now()`,
      [scope, key],
    );
    if (!row) continue;
    if (row.fingerprint !== fingerprint) return { outcome: 'reused' };
    if (row.status === 'completed') return { outcome: 'replay', status: row.response_status!, sealed: row.response_sealed! };
    const leaseLeft = Number(row.lease_left ?? 0);
    if (leaseLeft > 0) return { outcome: 'in_use', leaseLeftSeconds: leaseLeft };
    const takenOver = await em.execute<Array<{ id: string }>>(
      `update idempotency_keys set lease_owner = ?, locked_until = now() + make_interval(secs => ?)
       where id = ? and status = 'in_progress' and locked_until <= now() returning id`,
      [owner, leaseSeconds, row.id],
    );
    if (takenOver[0]) return { outcome: 'run', operationId: row.id, owner };
    return { outcome: 'in_use', leaseLeftSeconds: leaseSeconds };
  }
  return { outcome: 'in_use', leaseLeftSeconds: 1 };
}

/** Keeps the answer for replay. Only the attempt holding the lease stores; one that lost it leaves the row alone. */
export async function storeIdempotentAnswer(em: EntityManager, claim: { operationId: string; owner: string }, status: number, sealed: string): Promise<void> {
  await em.execute(
    `update idempotency_keys set status = 'completed', response_status = ?, response_sealed = ?, lease_owner = null, locked_until = null
     where id = ? and lease_owner = ?`,
    [status, sealed, claim.operationId, claim.owner],
    'run',
  );
}

/** Forgets a key whose attempt must not be replayed (a 5xx), so the client's retry runs again. */
export async function releaseIdempotencyKey(em: EntityManager, claim: { operationId: string; owner: string }): Promise<void> {
  await em.execute("delete from idempotency_keys where id = ? and lease_owner = ? and status = 'in_progress'", [claim.operationId, claim.owner], 'run');
}

/** Deletes expired keys in batches, so one sweep never holds many row locks; returns how many it deleted. */
export async function sweepExpiredIdempotencyKeys(em: EntityManager, batchSize = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await em.execute<{ affectedRows: number }>(
      'delete from idempotency_keys where id in (select id from idempotency_keys where expires_at <= now() limit ?)',
      [batchSize],
      'run',
    );
    total += result.affectedRows;
    if (result.affectedRows < batchSize) return total;
  }
}
