import { expect } from 'vitest';
import { call, type TestAccount } from './api.ts';
import { query } from './db.ts';

// Helpers for the device and segment tests: registering devices through the API, and moving lastSeenAt in the
// database (the API sets it to "now" on every register, so older devices are made by hand).

/** Another app of the account. */
export async function newApp(account: TestAccount, name = 'second app'): Promise<string> {
  const app = await call('POST', `/accounts/${account.accountId}/apps`, { token: account.apiKey, body: { name } });
  expect(app.status, JSON.stringify(app.body)).toBe(201);
  return app.body.appId;
}

/** Registers the devices in one batch and expects every one stored; answers deviceId by token. */
export async function registerDevices(account: TestAccount, devices: Array<Record<string, unknown>>, appId = account.appId): Promise<Map<string, string>> {
  const batch = await call('POST', '/device/batch', { token: account.apiKey, body: { appId, devices } });
  expect(batch.status, JSON.stringify(batch.body)).toBe(200);
  expect(batch.body.failed).toEqual([]);
  const tokens = devices.map((device) => device.token as string);
  const rows = await query<{ id: string; token: string }>('select id, token from devices where app_id = $1 and token = any($2)', [appId, tokens]);
  return new Map(rows.map((row) => [row.token, row.id]));
}

/** Sets when each device was last seen, in hours before the database's now. */
export async function setLastSeen(hoursAgoById: Map<string, number>): Promise<void> {
  for (const [id, hours] of hoursAgoById) await query(`update devices set last_seen_at = now() - $2 * interval '1 hour' where id = $1`, [id, hours]);
}

/** A segment created through the API. */
export async function newSegment(account: TestAccount, rules: unknown, appId = account.appId): Promise<any> {
  const created = await call('POST', '/filter/create', { token: account.apiKey, body: { appId, name: 'segment', rules } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
