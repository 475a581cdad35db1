import { randomUUID } from 'node:crypto';
import { ConnectionException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Device, type Platform } from '../../persistence/entities/device.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';
import { DomainError, formatDetailPath, type ErrorDetail } from '../errors.ts';

/**
 * What a device sends when it registers. Left out (undefined) keeps the stored value on an update; null clears it.
 * `attributes` merge into the stored ones key by key (a key sent as null is stored as null, which rules read as
 * missing); `subscribed` defaults to true for a new device and is kept when left out.
 */
export interface DeviceRegistration {
  token: string;
  platform: Platform;
  clientUserId?: string | null | undefined;
  attributes?: Record<string, unknown> | undefined;
  subscribed?: boolean | undefined;
  locale?: string | null | undefined;
  timezone?: string | null | undefined;
}

export interface RegisteredDevice {
  deviceId: string;
  created: boolean;
}

/** One row of the statements' input, as jsonb_to_recordset reads it. */
const inputColumns =
  'id uuid, token text, platform text, client_user_id text, set_client_user_id boolean, attributes jsonb, subscribed boolean, locale text, set_locale boolean, timezone text, set_timezone boolean';

// New tokens: inserted; a token the app already has is left to the update. Sorted by token so that two batches that
// share tokens take their locks in the same order and do not deadlock.
const insertNew = `insert into devices (id, account_id, app_id, token, platform, client_user_id, attributes, subscribed, locale, timezone, created_at, updated_at, last_seen_at)
select r.id, ?, ?, r.token, r.platform, r.client_user_id, coalesce(r.attributes, '{}'::jsonb), coalesce(r.subscribed, true), r.locale, r.timezone, now(), now(), now()
from jsonb_to_recordset(?::jsonb) as r(${inputColumns})
order by r.token
on conflict (app_id, token) do nothing
returning id, token`;

// Known tokens: each field that was sent replaces the stored one (attributes merge); lastSeenAt moves. Rows are
// locked in token order first, for the same reason as above.
const updateKnown = `with input as (select * from jsonb_to_recordset(?::jsonb) as r(${inputColumns})),
locked as (select d.id from devices d join input r on d.token = r.token where d.app_id = ? order by d.token for update of d)
update devices d set
  platform = r.platform,
  client_user_id = case when r.set_client_user_id then r.client_user_id else d.client_user_id end,
  attributes = d.attributes || coalesce(r.attributes, '{}'::jsonb),
  subscribed = coalesce(r.subscribed, d.subscribed),
  locale = case when r.set_locale then r.locale else d.locale end,
  timezone = case when r.set_timezone then r.timezone else d.timezone end,
  updated_at = now(),
  last_seen_at = now()
from input r
where d.id in (select id from locked) and d.token = r.token
returning d.id, d.token`;

const inputRow = (device: DeviceRegistration) => ({
  id: randomUUID(),
  token: device.token,
  platform: device.platform,
  client_user_id: device.clientUserId ?? null,
  set_client_user_id: device.clientUserId !== undefined,
  attributes: device.attributes ?? null,
  subscribed: device.subscribed ?? null,
  locale: device.locale ?? null,
  set_locale: device.locale !== undefined,
  timezone: device.timezone ?? null,
  set_timezone: device.timezone !== undefined,
});

/**
 * A database failure without the statement's values: Postgres puts them in messages and details ("Key (app_id,
 * token)=(…)"), and tokens are personal data that must not reach the logs. The SQLSTATE stays, so an unreachable
 * database still answers 503.
 */
function withoutValues(error: unknown): unknown {
  if (error instanceof ConnectionException) return error;
  const code = (error as { code?: unknown }).code;
  return Object.assign(new Error(`storing devices failed${typeof code === 'string' ? ` (SQLSTATE ${code})` : ''}`), { code });
}

/**
 * Upserts devices of one app on (app, token), with their tokens distinct: two statements in one transaction, each
 * one multi-row statement whatever the number of devices. Answers, for each device in order, its id and whether it
 * was created; a device deleted while this ran is left out.
 */
async function upsertDevices(em: EntityManager, accountId: string, appId: string, devices: DeviceRegistration[]): Promise<Map<string, RegisteredDevice>> {
  const input = devices.map(inputRow);
  try {
    return await em.transactional(async (tx) => {
      const byToken = new Map<string, RegisteredDevice>();
      const inserted = await tx.execute<Array<{ id: string; token: string }>>(insertNew, [accountId, appId, JSON.stringify(input)]);
      for (const row of inserted) byToken.set(row.token, { deviceId: row.id, created: true });
      const known = input.filter((row) => !byToken.has(row.token));
      if (known.length > 0) {
        const updated = await tx.execute<Array<{ id: string; token: string }>>(updateKnown, [JSON.stringify(known), appId]);
        for (const row of updated) byToken.set(row.token, { deviceId: row.id, created: false });
      }
      return byToken;
    });
  } catch (error) {
    throw withoutValues(error);
  }
}

const changedMeanwhile = () => new DomainError('conflict', 'The device was deleted while it registered; register it again');

/** Registers one device of the account's app (404 otherwise). */
export async function registerDevice(em: EntityManager, accountId: string, appId: string, device: DeviceRegistration): Promise<{ device: Device; created: boolean }> {
  await findOwnedApp(em, accountId, appId);
  const registered = (await upsertDevices(em, accountId, appId, [device])).get(device.token);
  const stored = registered && (await em.findOne(Device, { id: registered.deviceId }));
  if (!registered || !stored) throw changedMeanwhile();
  return { device: stored, created: registered.created };
}

export interface BatchFailure {
  index: number;
  error: { code: string; message: string; details?: ErrorDetail[] | undefined };
}

export interface BatchOutcome {
  created: number;
  updated: number;
  failed: BatchFailure[];
}

/**
 * Registers the valid devices of a batch (`devices`, each with its index in the request) in one upsert. A token that
 * an earlier device of the same batch already has fails, naming that device; the others are stored.
 */
export async function registerDeviceBatch(
  em: EntityManager,
  accountId: string,
  appId: string,
  devices: Array<{ index: number; device: DeviceRegistration }>,
): Promise<BatchOutcome> {
  await findOwnedApp(em, accountId, appId);
  const firstIndexOf = new Map<string, number>();
  const failed: BatchFailure[] = [];
  const distinct: typeof devices = [];
  for (const entry of devices) {
    const first = firstIndexOf.get(entry.device.token);
    if (first === undefined) {
      firstIndexOf.set(entry.device.token, entry.index);
      distinct.push(entry);
    } else {
      const path = formatDetailPath('body', ['devices', entry.index, 'token']);
      failed.push({ index: entry.index, error: { code: 'validation_failed', message: 'The device is not valid', details: [{ path, message: `repeats the token of devices.${first}` }] } });
    }
  }
  const registered = distinct.length > 0 ? await upsertDevices(em, accountId, appId, distinct.map((entry) => entry.device)) : new Map<string, RegisteredDevice>();
  let created = 0;
  for (const entry of distinct) {
    const outcome = registered.get(entry.device.token);
    if (outcome) created += outcome.created ? 1 : 0;
    else failed.push({ index: entry.index, error: { code: 'conflict', message: changedMeanwhile().message } });
  }
  return { created, updated: registered.size - created, failed };
}
