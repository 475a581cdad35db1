import type { EntityManager } from '@mikro-orm/postgresql';
import { findOwnedDevice } from './find-owned-device.ts';

/**
 * Deletes a device: its personal data (token, clientUserId, attributes, locale, timezone) is erased at once and it
 * leaves every segment. The row stays, marked deleted, so records that name the device id remain valid. The same
 * token registered later is a new device.
 */
export async function deleteDevice(em: EntityManager, accountId: string, deviceId: string): Promise<void> {
  const device = await findOwnedDevice(em, accountId, deviceId);
  Object.assign(device, { token: null, clientUserId: null, attributes: {}, locale: null, timezone: null, subscribed: false, deletedAt: new Date() });
  await em.flush();
}
