import type { EntityManager } from '@mikro-orm/postgresql';
import { Device } from '../../persistence/entities/device.ts';
import { isUuid } from '../../security/ids.ts';
import { notFound } from '../errors.ts';

/** A device of one of the account's apps, not deleted, or 404 (another account's device looks the same as none). */
export async function findOwnedDevice(em: EntityManager, accountId: string, deviceId: string): Promise<Device> {
  const device = isUuid(deviceId) ? await em.findOne(Device, { id: deviceId, accountId, deletedAt: null }) : null;
  if (!device) throw notFound('Device');
  return device;
}
