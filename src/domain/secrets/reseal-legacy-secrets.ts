import type { EntityManager } from '@mikro-orm/postgresql';
import { legacySealPrefix, type SecretBox } from '../../security/secret-box.ts';
import { secretContexts } from './secret-contexts.ts';

/** The stored secrets of each table, and the context each is sealed for (by the row's id). */
const sealedColumns: { table: string; columns: { name: string; context: (id: string) => string }[] }[] = [
  {
    table: 'endpoints',
    columns: [
      { name: 'secret_sealed', context: secretContexts.endpointSigning },
      { name: 'previous_secret_sealed', context: secretContexts.endpointSigning },
    ],
  },
  {
    table: 'connections',
    columns: [
      { name: 'signing_secret_sealed', context: secretContexts.connectionSigning },
      { name: 'previous_signing_secret_sealed', context: secretContexts.connectionSigning },
      { name: 'outbound_credential_sealed', context: secretContexts.connectionOutboundCredential },
    ],
  },
];

export interface ResealOutcome {
  resealed: number;
  /** Values that did not open under SECRETS_KEY: left as they are, and named by row in the log by the caller. */
  unreadable: { table: string; id: string; column: string }[];
}

/**
 * Re-seals, for their row's context, the endpoint and connection secrets stored before docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md (`v1.`, sealed
 * without one). The API runs it when it starts. Each value is written only if the row still holds the value read, so
 * any number of instances may run it at once, and a rotation in between wins. Stored Idempotency-Key answers are left
 * to expire (24 h). Rows are walked in id order, `batchSize` at a time, so one run holds no long lock.
 */
export async function resealLegacySecrets(em: EntityManager, box: SecretBox, batchSize = 200): Promise<ResealOutcome> {
  const outcome: ResealOutcome = { resealed: 0, unreadable: [] };
  for (const { table, columns } of sealedColumns) {
    const legacy = columns.map((column) => `${column.name} like '${legacySealPrefix}%'`).join(' or ');
    let after = '';
    for (;;) {
      const rows = await em.execute<Record<string, string | null>[]>(
        `select id, ${columns.map((column) => column.name).join(', ')} from ${table} where id > ? and (${legacy}) order by id limit ?`,
        [after, batchSize],
      );
      for (const row of rows) {
        const id = row.id!;
        for (const column of columns) {
          const value = row[column.name];
          if (!value?.startsWith(legacySealPrefix)) continue;
          let resealed: string;
          try {
            resealed = box.seal(box.open(value, column.context(id)), column.context(id));
          } catch {
            outcome.unreadable.push({ table, id, column: column.name });
            continue;
          }
          const result = await em.execute<{ affectedRows: number }>(
            `update ${table} set ${column.name} = ? where id = ? and ${column.name} = ?`,
            [resealed, id, value],
            'run',
          );
          outcome.resealed += result.affectedRows;
        }
      }
      if (rows.length < batchSize) break;
      after = rows.at(-1)!.id!;
    }
  }
  return outcome;
}
