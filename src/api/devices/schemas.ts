import { z } from 'zod';
import { localeSchema } from '../../domain/devices/locale.ts';
import type { BatchFailure, DeviceRegistration } from '../../domain/devices/register-devices.ts';
import { formatDetailPath, withoutLooserBounds } from '../../domain/errors.ts';
import { platforms, type Device } from '../../persistence/entities/device.ts';
import { pageOf, paginationQuery, timeZoneSchema, timestamp } from '../shared-schemas.ts';

/** Devices one batch may carry. */
export const maxBatchDevices = 1000;
/** A batch body may be this large (a single register keeps the default 1 MB). */
export const batchBodyLimit = 5 * 1024 * 1024;
export const maxAttributeKeys = 100;
/** The attributes of one request, as JSON text. */
export const maxAttributesLength = 8 * 1024;

const deviceFields = {
  token: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters without spaces')
    .meta({ description: 'The push token (APNs, FCM, or a web push subscription). Unique per app: registering it again updates the device.' }),
  platform: z.enum(platforms),
  clientUserId: z.string().min(1).max(255).nullable().optional().meta({ description: 'Your id for the person. Left out: kept; null: cleared.' }),
  attributes: z
    .record(z.string().min(1).max(128), z.unknown())
    .refine((attributes) => Object.keys(attributes).length <= maxAttributeKeys, `must have at most ${maxAttributeKeys} keys`)
    .refine((attributes) => JSON.stringify(attributes).length <= maxAttributesLength, `must be at most ${maxAttributesLength} characters as JSON`)
    .optional()
    .meta({ description: 'Merged into the stored attributes key by key (a key sent as null is stored as null, which segment rules read as missing).' }),
  subscribed: z.boolean().optional().meta({ description: 'Default true for a new device; left out, an existing device keeps its value.' }),
  locale: localeSchema.nullable().optional(),
  timezone: timeZoneSchema.nullable().optional(),
};

export const registerDeviceBody = z.strictObject({ appId: z.uuid(), ...deviceFields }).meta({ id: 'RegisterDevice' });

type RowResult = { device: DeviceRegistration } | { issues: z.core.$ZodIssue[] };

/**
 * One device of a batch. A device that fails its schema does not fail the request: `catch` turns it into its issues,
 * which the answer reports under `failed`. The OpenAPI document shows the device's schema.
 */
const batchDevice = z
  .strictObject(deviceFields)
  .transform((device): RowResult => ({ device }))
  .catch(({ error }): RowResult => ({ issues: error.issues }))
  .meta({ id: 'DeviceInput' });

export const deviceBatchBody = z
  .strictObject({ appId: z.uuid(), devices: z.array(batchDevice).min(1).max(maxBatchDevices) })
  .meta({ id: 'RegisterDeviceBatch' });

/** The valid devices of a batch with their indexes, and a failure for each of the others. */
export function sortBatch(rows: RowResult[]): { valid: Array<{ index: number; device: DeviceRegistration }>; failed: BatchFailure[] } {
  const valid: Array<{ index: number; device: DeviceRegistration }> = [];
  const failed: BatchFailure[] = [];
  rows.forEach((row, index) => {
    if ('device' in row) valid.push({ index, device: row.device });
    else {
      const details = withoutLooserBounds(row.issues).map((issue) => ({ path: formatDetailPath('body', ['devices', index, ...(issue.path)]), message: issue.message }));
      failed.push({ index, error: { code: 'validation_failed', message: 'The device is not valid', details } });
    }
  });
  return { valid, failed };
}

export const deviceSchema = z
  .object({
    deviceId: z.uuid(),
    appId: z.uuid(),
    token: z.string(),
    platform: z.enum(platforms),
    clientUserId: z.string().nullable(),
    attributes: z.record(z.string(), z.unknown()),
    subscribed: z.boolean(),
    locale: z.string().nullable(),
    timezone: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
    lastSeenAt: timestamp,
  })
  .meta({ id: 'Device' });

export const batchOutcomeSchema = z
  .object({
    created: z.number().int(),
    updated: z.number().int(),
    failed: z.array(
      z.object({
        index: z.number().int().meta({ description: 'The device’s place in `devices`, from 0.' }),
        error: z.object({
          code: z.string(),
          message: z.string(),
          details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
        }),
      }),
    ),
  })
  .meta({ id: 'DeviceBatchOutcome' });

export const deviceIdQuery = z.object({ id: z.uuid() });
export const listDevicesQuery = z.object({ appId: z.uuid(), platform: z.enum(platforms).optional(), ...paginationQuery });
export const devicePage = pageOf(deviceSchema).meta({ id: 'DevicePage' });

export function toDeviceResponse(device: Device): z.infer<typeof deviceSchema> {
  return {
    deviceId: device.id,
    appId: device.appId,
    // Null only once deleted, and a deleted device is never answered.
    token: device.token ?? '',
    platform: device.platform,
    clientUserId: device.clientUserId ?? null,
    attributes: device.attributes,
    subscribed: device.subscribed,
    locale: device.locale ?? null,
    timezone: device.timezone ?? null,
    createdAt: device.createdAt.toISOString(),
    updatedAt: device.updatedAt.toISOString(),
    lastSeenAt: device.lastSeenAt.toISOString(),
  };
}
