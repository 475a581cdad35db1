import type { EntityManager } from '@mikro-orm/postgresql';
import type { Device } from '../../persistence/entities/device.ts';
import { findOwnedDevice } from './find-owned-device.ts';

/** The device leaves every segment until it registers again with `subscribed: true`. Unsubscribing twice is harmless. */
export async function unsubscribeDevice(em: EntityManager, accountId: string, deviceId: string): Promise<Device> {
  const device = await findOwnedDevice(em, accountId, deviceId);
  device.subscribed = false;
  await em.flush();
  return device;
}
