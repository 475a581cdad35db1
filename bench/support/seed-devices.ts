import type pg from 'pg';
import { fmt } from './stats.ts';

/** Devices seeded per INSERT, so the seeding can say how far it got. */
const SEED_CHUNK = 100_000;

/**
 * `count` devices of the app, written straight into `devices` as the API stores a registration (src/domain/devices/
 * register-devices.ts): a random id, an FCM-length token, a platform, a client user id, a few attributes, subscribed.
 */
export async function seedDevices(sql: pg.Client, progress: (message: string) => void, accountId: string, appId: string, count: number, label: string, zones: string[] = ['Europe/Berlin']): Promise<void> {
  const started = performance.now();
  for (let from = 1; from <= count; from += SEED_CHUNK) {
    const to = Math.min(count, from + SEED_CHUNK - 1);
    await sql.query(
      `insert into devices (id, account_id, app_id, token, platform, client_user_id, attributes, subscribed, locale, timezone, created_at, updated_at, last_seen_at)
       select gen_random_uuid(), $1, $2::uuid, lpad(n::text, 11, '0') || ':APA91b' || md5(n::text || $2::text) || md5($2::text || n::text) || md5(n::text) || md5($2::text),
              (array['android', 'ios', 'web'])[1 + n % 3], 'user-' || n,
              jsonb_build_object('plan', (array['free', 'pro', 'enterprise'])[1 + n % 3], 'group', 'bench'),
              true, 'en-US', ($5::text[])[1 + n % cardinality($5::text[])], now(), now(), now()
         from generate_series($3::int, $4::int) as n`,
      [accountId, appId, from, to, zones],
    );
    progress(`${label}: seeded ${to} of ${count} devices (${fmt((performance.now() - started) / 1000, 1)} s)`);
  }
  // What autovacuum does to a table that was filled (insert threshold), which the bench's server may not run
  // (autovacuum is off on the benches' system PostgreSQL): the visibility map set, so the snapshot can read the
  // segment's devices from the (app_id, id) index alone, in device id order, as it would in production.
  await sql.query('vacuum (analyze) devices');
}
