import { createNotification } from '../../domain/notifications/create-notification.ts';
import { getNotification } from '../../domain/notifications/get-notification.ts';
import { listNotifications } from '../../domain/notifications/list-notifications.ts';
import { defineRoute } from '../../http/route.ts';
import {
  createNotificationBody,
  listNotificationsQuery,
  notificationIdQuery,
  notificationPage,
  notificationSchema,
  toNotificationResponse,
} from './schemas.ts';
import { toPageResponse } from '../shared-schemas.ts';

const tag = 'Messages';

export const notificationRoutes = [
  defineRoute({
    method: 'post',
    path: '/notification/create',
    operationId: 'createNotification',
    summary: 'Create a push message (status DRAFT)',
    tag,
    auth: 'account',
    body: createNotificationBody,
    responses: {
      201: { description: 'The stored message', schema: notificationSchema },
      404: { description: 'The appId is not one of the account’s apps' },
      422: { description: 'The filterId names no segment of the app (`unknown_segment`)' },
    },
    handler: async ({ body }, { em, account }) => ({
      status: 201,
      body: toNotificationResponse(await createNotification(em, account.id, body)),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/notification/get',
    operationId: 'getNotification',
    summary: 'Get one push message',
    tag,
    auth: 'account',
    query: notificationIdQuery,
    responses: {
      200: { description: 'The message', schema: notificationSchema },
      404: { description: 'No such message in this account' },
    },
    handler: async ({ query }, { em, account }) => ({
      status: 200,
      body: toNotificationResponse(await getNotification(em, account.id, query.id)),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/notification/list',
    operationId: 'listNotifications',
    summary: 'List push messages, newest first',
    tag,
    auth: 'account',
    query: listNotificationsQuery,
    responses: { 200: { description: 'One page of messages', schema: notificationPage } },
    handler: async ({ query }, { em, account }) => {
      const page = await listNotifications(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toNotificationResponse) };
    },
  }),
];
