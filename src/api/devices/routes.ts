import { deleteDevice } from '../../domain/devices/delete-device.ts';
import { findOwnedDevice } from '../../domain/devices/find-owned-device.ts';
import { listDevices } from '../../domain/devices/list-devices.ts';
import { registerDevice, registerDeviceBatch } from '../../domain/devices/register-devices.ts';
import { unsubscribeDevice } from '../../domain/devices/unsubscribe-device.ts';
import { defineRoute } from '../../http/route.ts';
import {
  batchBodyLimit,
  batchOutcomeSchema,
  deviceBatchBody,
  deviceIdQuery,
  devicePage,
  deviceSchema,
  listDevicesQuery,
  registerDeviceBody,
  sortBatch,
  toDeviceResponse,
} from './schemas.ts';
import { toPageResponse } from '../shared-schemas.ts';

const tag = 'Devices';
const notFound = { description: 'No such device in this account (or it was deleted)' };
const appNotFound = { description: 'The appId is not one of the account’s apps' };

export const deviceRoutes = [
  defineRoute({
    method: 'post',
    path: '/device/register',
    operationId: 'registerDevice',
    summary: 'Register a push token, or update the device that has it (upsert on app and token)',
    tag,
    auth: 'account',
    body: registerDeviceBody,
    responses: {
      201: { description: 'A new device', schema: deviceSchema },
      200: { description: 'The app’s device with this token, updated (attributes merged; lastSeenAt now)', schema: deviceSchema },
      404: appNotFound,
      409: { description: 'The device was deleted while it registered (`conflict`); register it again' },
    },
    handler: async ({ body }, { em, account }) => {
      const { appId, ...fields } = body;
      const { device, created } = await registerDevice(em, account.id, appId, fields);
      return { status: created ? 201 : 200, body: toDeviceResponse(device) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/device/batch',
    operationId: 'registerDeviceBatch',
    summary: 'Register up to 1000 devices in one upsert; a device that is not valid fails alone',
    tag,
    auth: 'account',
    body: deviceBatchBody,
    bodyLimit: batchBodyLimit,
    responses: {
      200: { description: 'How many devices were created and updated, and each that failed with its index', schema: batchOutcomeSchema },
      404: appNotFound,
    },
    handler: async ({ body }, { em, account }) => {
      const { valid, failed } = sortBatch(body.devices);
      const outcome = await registerDeviceBatch(em, account.id, body.appId, valid);
      return { status: 200, body: { ...outcome, failed: [...failed, ...outcome.failed].sort((a, b) => a.index - b.index) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/device/get',
    operationId: 'getDevice',
    summary: 'Get one device',
    tag,
    auth: 'account',
    query: deviceIdQuery,
    responses: { 200: { description: 'The device', schema: deviceSchema }, 404: notFound },
    handler: async ({ query }, { em, account }) => ({ status: 200, body: toDeviceResponse(await findOwnedDevice(em, account.id, query.id)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/device/list',
    operationId: 'listDevices',
    summary: 'List an app’s devices, newest first',
    tag,
    auth: 'account',
    query: listDevicesQuery,
    responses: { 200: { description: 'One page of devices', schema: devicePage } },
    handler: async ({ query }, { em, account }) => {
      const page = await listDevices(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toDeviceResponse) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/device/unsubscribe',
    operationId: 'unsubscribeDevice',
    summary: 'Unsubscribe a device: it leaves every segment until it registers with subscribed: true',
    tag,
    auth: 'account',
    query: deviceIdQuery,
    responses: { 200: { description: 'The device, subscribed: false', schema: deviceSchema }, 404: notFound },
    handler: async ({ query }, { em, account }) => ({ status: 200, body: toDeviceResponse(await unsubscribeDevice(em, account.id, query.id)) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/device/delete',
    operationId: 'deleteDevice',
    summary: 'Delete a device: its token and other personal data are erased at once',
    tag,
    auth: 'account',
    query: deviceIdQuery,
    responses: { 204: { description: 'Deleted' }, 404: notFound },
    handler: async ({ query }, { em, account }) => {
      await deleteDevice(em, account.id, query.id);
      return { status: 204 };
    },
  }),
];
