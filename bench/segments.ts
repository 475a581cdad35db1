/**
 * `npm run bench:segments`: segment queries on a large devices table. Fills a scratch database with N devices of one
 * app (plus N/4 of another app, noise the queries must skip), then, for representative rule sets, runs the count and
 * the first page (1000 devices) that countSegmentDevices and pageSegmentDevices run, under EXPLAIN ANALYZE. It prints
 * the indexes each plan uses and its time, against the baseline of the same query with index scans switched off
 * (a sequential scan of the table). Figures go to stdout, progress to stderr.
 *
 * Environment (all optional): N devices of the measured app (200000), RUNS per query, best taken (3), DATABASE_URL (a
 * server to create a scratch database on; embedded PostgreSQL otherwise).
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createApp } from '../src/domain/apps/create-app.ts';
import { positiveInt } from './support/env.ts';
import { machineLines } from './support/machine.ts';
import { fmt } from './support/stats.ts';
import { segmentCondition } from '../src/domain/segments/segment-condition.ts';
import type { SegmentRules } from '../src/domain/segments/segment-rules.ts';
import { createLogger } from '../src/logger.ts';
import { connectOrm, migrateUp } from '../src/persistence/orm.ts';
import { createTestDatabase } from '../test/support/test-database.ts';

const N = positiveInt('N', 200_000);
const RUNS = positiveInt('RUNS', 3);
const PAGE = 1000;

const progress = (message: string) => process.stderr.write(`[bench:segments] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

/**
 * Devices with the spread a real app has: a third per platform, 95% subscribed, 1% deleted, plan free (89%), pro
 * (10%) or enterprise (1%), an age, one of 23 countries, beta for 2%, one of 10 locales, last seen within 2000 hours.
 */
const fill = `insert into devices (id, account_id, app_id, token, platform, client_user_id, attributes, subscribed, locale, timezone,
  created_at, updated_at, last_seen_at, deleted_at)
select gen_random_uuid(), $1, $2, $3 || g, (array['ios', 'android', 'web'])[1 + g % 3], case when g % 5 = 0 then null else 'u' || g end,
  jsonb_build_object('plan', case when g % 100 = 0 then 'enterprise' when g % 10 = 1 then 'pro' else 'free' end,
    'age', 13 + g % 70, 'address', jsonb_build_object('country', 'C' || (g % 23)), 'beta', g % 50 = 0),
  g % 19 <> 7, (array['en-GB', 'en-US', 'fr-FR', 'de-DE', 'es-ES', 'it-IT', 'pt-BR', 'ja-JP', 'nl-NL', 'pl-PL'])[1 + g % 10], 'UTC',
  now(), now(), now() - (g % 2000) * interval '1 hour', case when g % 101 = 42 then now() end
from generate_series(1, $4) as g`;

/** Representative rule sets: selective and broad, indexed and not. */
const rulesForBench: Array<{ name: string; rules: SegmentRules }> = [
  { name: 'every device: { all: [] }', rules: { all: [] } },
  { name: 'attributes.plan eq enterprise (1%)', rules: { all: [{ field: 'attributes.plan', op: 'eq', value: 'enterprise' }] } },
  { name: 'attributes.plan in [pro, enterprise] (11%)', rules: { all: [{ field: 'attributes.plan', op: 'in', value: ['pro', 'enterprise'] }] } },
  { name: 'platform eq ios and lastSeenAt withinHours 24', rules: { all: [{ field: 'platform', op: 'eq', value: 'ios' }, { field: 'lastSeenAt', op: 'withinHours', value: 24 }] } },
  { name: 'locale eq ja-JP and attributes.address.country eq C7', rules: { all: [{ field: 'locale', op: 'eq', value: 'ja-JP' }, { field: 'attributes.address.country', op: 'eq', value: 'C7' }] } },
  { name: 'any [attributes.beta eq true, clientUserId eq u12345]', rules: { any: [{ field: 'attributes.beta', op: 'eq', value: true }, { field: 'clientUserId', op: 'eq', value: 'u12345' }] } },
  { name: 'attributes.age gt 75 (not indexable: a filter on the app\'s rows)', rules: { all: [{ field: 'attributes.age', op: 'gt', value: 75 }] } },
];

interface Plan {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: Plan[];
}

function indexesOf(plan: Plan, found = new Set<string>()): Set<string> {
  if (plan['Index Name']) found.add(`${plan['Node Type']} on ${plan['Index Name']}`);
  for (const child of plan.Plans ?? []) indexesOf(child, found);
  return found;
}

async function explain(client: pg.Client, sql: string, withoutIndexes: boolean): Promise<{ ms: number; indexes: string[]; rows: string }> {
  let best = Infinity;
  let plan: Plan | undefined;
  await client.query('begin');
  try {
    if (withoutIndexes) await client.query('set local enable_indexscan = off; set local enable_bitmapscan = off; set local enable_indexonlyscan = off');
    for (let run = 0; run < RUNS; run++) {
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: Plan; 'Execution Time': number }> }>(`explain (analyze, format json) ${sql}`);
      const [result] = rows[0]!['QUERY PLAN'];
      if (result!['Execution Time'] < best) [best, plan] = [result!['Execution Time'], result!.Plan];
    }
  } finally {
    await client.query('rollback');
  }
  const { rows } = await client.query(sql);
  return { ms: best, indexes: [...indexesOf(plan!)], rows: rows.length === 1 && 'count' in rows[0] ? String((rows[0] as { count: unknown }).count) : `${rows.length} rows` };
}

async function main(): Promise<void> {
  const logger = createLogger('warn', 'bench');
  const loadAtStart = loadavg();
  const database = await createTestDatabase(logger);
  const orm = await connectOrm(database.url, 2);
  const client = new pg.Client({ connectionString: database.url });
  try {
    await migrateUp(orm);
    await client.connect();
    const { account } = await createAccount(orm.em.fork(), { name: 'bench' });
    const app = await createApp(orm.em.fork(), account.id, { name: 'measured' });
    const noise = await createApp(orm.em.fork(), account.id, { name: 'noise' });
    progress(`filling ${N} devices (+${N / 4} of another app)`);
    const started = performance.now();
    await client.query(fill, [account.id, app.id, 'tok-', N]);
    await client.query(fill, [account.id, noise.id, 'noise-', Math.floor(N / 4)]);
    // Vacuumed as autovacuum keeps a live table, so that index-only scans can skip the heap.
    await client.query('vacuum analyze devices');
    const fillSeconds = (performance.now() - started) / 1000;

    out('bench/segments: segment count and first page on a large devices table');
    out(`  ${N} devices in the app, ${Math.floor(N / 4)} in another; filled and vacuumed in ${fmt(fillSeconds, 1)} s; best of ${RUNS} runs`);
    out();
    for (const line of await machineLines(client, loadAtStart)) out(line);
    out();
    const figures: Array<{ rules: string; query: string; rows: string; indexedMs: number; seqScanMs: number; ratioToBaseline: number }> = [];
    for (const { name, rules } of rulesForBench) {
      const where = segmentCondition(rules, app.id);
      // The SQL exactly as the ORM sends it: MikroORM writes each value in for its `?`.
      const inline = orm.em.getPlatform().formatQuery(where.sql, where.params);
      const queries = {
        count: `select count(*) as count from devices d where ${inline}`,
        page: `select d.id, d.token, d.platform from devices d where ${inline} order by d.id limit ${PAGE}`,
      };
      out(name);
      for (const [kind, sql] of Object.entries(queries)) {
        const indexed = await explain(client, sql, false);
        const scanned = await explain(client, sql, true);
        out(`  ${kind.padEnd(5)} ${indexed.rows.padEnd(10)} ${fmt(indexed.ms, 2).padStart(8)} ms   seq scan ${fmt(scanned.ms, 2).padStart(8)} ms   ratio ${fmt(indexed.ms / scanned.ms, 3)}`);
        out(`        ${indexed.indexes.length > 0 ? indexed.indexes.join('; ') : 'no index (sequential scan)'}`);
        figures.push({ rules: name, query: kind, rows: indexed.rows, indexedMs: indexed.ms, seqScanMs: scanned.ms, ratioToBaseline: indexed.ms / scanned.ms });
      }
    }
    // No Temporal here, so no floor: the baseline is the same query as a sequential scan.
    out(JSON.stringify({ bench: 'segments', unit: 'ms', devices: N, worstRatioToBaseline: Math.max(...figures.map((figure) => figure.ratioToBaseline)), queries: figures }));
  } finally {
    await client.end().catch(() => {});
    await orm.close();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  progress(`failed: ${String(error)}`);
  process.exitCode = 1;
});
