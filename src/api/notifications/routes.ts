import { cancelCampaign } from '../../domain/campaigns/cancel-campaign.ts';
import { viewCampaign } from '../../domain/campaigns/campaign-view.ts';
import { scheduleCampaign } from '../../domain/campaigns/schedule-campaign.ts';
import { sendTestPushes } from '../../domain/campaigns/send-test-pushes.ts';
import { createNotification } from '../../domain/notifications/create-notification.ts';
import { getNotification } from '../../domain/notifications/get-notification.ts';
import { listNotifications } from '../../domain/notifications/list-notifications.ts';
import type { Notification } from '../../persistence/entities/notification.ts';
import { defineRoute, type RequestContext } from '../../http/route.ts';
import {
  createNotificationBody,
  listNotificationsQuery,
  notificationAppQuery,
  notificationIdQuery,
  notificationPage,
  notificationSchema,
  notificationWithSendSchema,
  scheduleNotificationBody,
  testNotificationBody,
  testSendsSchema,
  toCampaignResponse,
  toNotificationResponse,
} from './schemas.ts';
import { toPageResponse } from '../shared-schemas.ts';

const tag = 'Messages';
const notFound = { description: 'No such message (or app) in this account' };
const campaignDeps = ({ em, services }: RequestContext) => ({ em, temporal: services.temporal });

/** A message with its send, as GET /notification/get and the send routes answer. */
const withSend = async (em: RequestContext['em'], notification: Notification) => ({
  ...toNotificationResponse(notification),
  send: toCampaignResponse(await viewCampaign(em.fork(), notification)),
});

export const notificationRoutes = [
  defineRoute({
    method: 'post',
    path: '/notification/create',
    operationId: 'createNotification',
    summary: 'Create a push message (status DRAFT); it is sent only once scheduled',
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
      200: { description: 'The message, with its send to its segment', schema: notificationWithSendSchema },
      404: { description: 'No such message in this account' },
    },
    handler: async ({ query }, { em, account }) => ({
      status: 200,
      body: await withSend(em, await getNotification(em, account.id, query.id)),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/notification/schedule',
    operationId: 'scheduleNotification',
    summary: 'Send the message to its segment at playTime (once READY), or move a send that has not started',
    tag,
    auth: 'account',
    query: notificationAppQuery,
    body: scheduleNotificationBody,
    responses: {
      200: { description: 'The message, with its send SCHEDULED (or WAITING_FOR_RECORDING)', schema: notificationWithSendSchema },
      404: notFound,
      409: { description: 'Sending has started, or the send has ended (`invalid_state`)' },
      422: {
        description:
          'No segment given, on the send or on the message (`segment_required`); not a segment of the app (`unknown_segment`); playTime plus the message’s expiry has passed, so the send could never go (`play_time_expired`)',
      },
    },
    handler: async ({ query, body }, ctx) => ({
      status: 200,
      body: await withSend(ctx.em, await scheduleCampaign(campaignDeps(ctx), ctx.account.id, { ...query, ...body })),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/notification/cancel',
    operationId: 'cancelNotification',
    summary: 'Cancel the message’s send, before or during it: nothing more is sent',
    tag,
    auth: 'account',
    query: notificationAppQuery,
    responses: {
      200: { description: 'The message, with its send CANCELLED', schema: notificationWithSendSchema },
      404: notFound,
      409: { description: 'The send is SENT, EXPIRED, FAILED or CANCELLED already (`invalid_state`)' },
    },
    handler: async ({ query }, ctx) => {
      await cancelCampaign(campaignDeps(ctx), ctx.account.id, query);
      return { status: 200, body: await withSend(ctx.em, await getNotification(ctx.em, ctx.account.id, query.id)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/notification/test',
    operationId: 'testNotification',
    summary: 'Send the message now to 1 to 20 chosen devices (marked test; never counted in results)',
    tag,
    auth: 'account',
    query: notificationAppQuery,
    body: testNotificationBody,
    responses: {
      202: { description: 'The pushes are on their way', schema: testSendsSchema },
      400: { description: 'A device is not a subscribed device of the message’s app (`validation_failed`, one detail per device)' },
      404: notFound,
    },
    handler: async ({ query, body }, ctx) => ({
      status: 202,
      body: await sendTestPushes(campaignDeps(ctx), ctx.account.id, { ...query, deviceIds: body.deviceIds }),
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
