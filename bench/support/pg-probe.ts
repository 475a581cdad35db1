import type pg from 'pg';
import { ascending, percentile } from './stats.ts';

const kinds = new Map<string, string>();
/** MikroORM sends its values inside the text, so statements are told apart by their start, where verb and table are. */
const kindKeyLength = 160;

/** Names a statement by what it does and to which table, so timings group by step (remembered, so the probe stays cheap). */
export function statementKind(sql: string): string {
  const key = sql.slice(0, kindKeyLength);
  let kind = kinds.get(key);
  if (kind === undefined) {
    kind = kindOf(key);
    if (kinds.size < 10_000) kinds.set(key, kind);
  }
  return kind;
}

function kindOf(sql: string): string {
  const text = sql.trim().replace(/\s+/g, ' ').toLowerCase();
  if (/^(begin|commit|rollback)\b/.test(text)) return text.split(' ')[0]!;
  const table = /(?:from|into|update) "?([a-z_]+)"?/.exec(text)?.[1] ?? '?';
  const verb = text.split(' ')[0]!;
  return `${verb} ${table}${/ for update\b/.test(text) ? ' for update' : ''}`;
}

export interface ProbeSummary {
  count: number;
  mean: number;
  p50: number;
  p99: number;
  total: number;
}

const summarise = (values: readonly number[]): ProbeSummary => {
  const sorted = ascending(values);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return { count: sorted.length, mean: sorted.length ? total / sorted.length : Number.NaN, p50: percentile(sorted, 50), p99: percentile(sorted, 99), total };
};

/**
 * Watches one `pg.Pool` without changing what it does: how long each `connect()` waited for a client, how long a
 * client was held (split into transactions and single statements), and how long each statement took, by kind.
 * Records only while `recording` is on. Promise-style `connect()` and `query(text, values)` only, which is what
 * Kysely (under MikroORM) uses; anything else passes through untimed.
 */
export class PoolProbe {
  recording = false;
  readonly acquireWaits: number[] = [];
  readonly transactionHolds: number[] = [];
  readonly statementHolds: number[] = [];
  readonly statements = new Map<string, number[]>();
  #wrapped = new WeakSet<pg.PoolClient>();
  #held = new WeakMap<pg.PoolClient, { since: number; transaction: boolean }>();

  attach(pool: pg.Pool): void {
    const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
    pool.connect = ((...args: unknown[]) => {
      if (args.length > 0) return (connect as (...rest: unknown[]) => unknown)(...args);
      const asked = performance.now();
      return connect().then((client) => {
        const got = performance.now();
        if (this.recording) this.acquireWaits.push(got - asked);
        this.#held.set(client, { since: got, transaction: false });
        this.#instrument(client);
        // pg-pool gives the client a new release() at every checkout, so it is wrapped at every checkout.
        const release = client.release.bind(client);
        client.release = ((...rest: Parameters<typeof client.release>) => {
          const held = this.#held.get(client);
          if (held && this.recording) (held.transaction ? this.transactionHolds : this.statementHolds).push(performance.now() - held.since);
          this.#held.delete(client);
          return release(...rest);
        });
        return client;
      });
    }) as typeof pool.connect;
  }

  #instrument(client: pg.PoolClient): void {
    if (this.#wrapped.has(client)) return;
    this.#wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const [text] = args;
      const started = performance.now();
      const result = query(...args);
      if (typeof text !== 'string' || !(result instanceof Promise)) return result;
      const kind = statementKind(text);
      if (kind === 'begin') {
        const held = this.#held.get(client);
        if (held) held.transaction = true;
      }
      if (!this.recording) return result;
      const note = () => {
        const samples = this.statements.get(kind) ?? [];
        samples.push(performance.now() - started);
        this.statements.set(kind, samples);
      };
      result.then(note, note);
      return result;
    }) as typeof client.query;
  }

  summary(): { acquire: ProbeSummary; transactionHold: ProbeSummary; statementHold: ProbeSummary; statements: Array<[string, ProbeSummary]> } {
    return {
      acquire: summarise(this.acquireWaits),
      transactionHold: summarise(this.transactionHolds),
      statementHold: summarise(this.statementHolds),
      statements: [...this.statements].map(([kind, values]): [string, ProbeSummary] => [kind, summarise(values)]).sort((a, b) => b[1].total - a[1].total),
    };
  }
}
