import { z } from 'zod';
import { listPushSends } from '../../domain/sends/list-push-sends.ts';
import { clickClockSkewMs, recordClick } from '../../domain/sends/record-click.ts';
import { defineRoute } from '../../http/route.ts';
import { abTestArms } from '../../persistence/entities/ab-test-member.ts';
import { pushSendSources, pushSendStatuses, type PushSend } from '../../persistence/entities/push-send.ts';
import { pageOf, paginationQuery, timestamp, toPageResponse } from '../shared-schemas.ts';

const sendSchema = z
  .object({
    sendId: z.uuid(),
    source: z.enum(pushSendSources).meta({ description: 'What sent it: an A/B test, the message’s campaign send, a test send, or an experience’s push node (`flow`).' }),
    abTestId: z.uuid().nullable(),
    deviceId: z.uuid(),
    arm: z.enum(abTestArms).nullable(),
    notificationId: z.uuid(),
    status: z.enum(pushSendStatuses),
    error: z.string().nullable(),
    sentAt: timestamp.nullable(),
    clickedAt: timestamp.nullable(),
    convertedAt: timestamp.nullable().meta({ description: 'When a conversion was attributed to this push (its message’s `conversion` goal).' }),
  })
  .meta({ id: 'PushSend' });

const toSendResponse = (send: PushSend): z.infer<typeof sendSchema> => ({
  sendId: send.id,
  source: send.source,
  abTestId: send.abTestId ?? null,
  deviceId: send.deviceId,
  arm: send.arm ?? null,
  notificationId: send.notificationId,
  status: send.status,
  error: send.error ?? null,
  sentAt: send.sentAt?.toISOString() ?? null,
  clickedAt: send.clickedAt?.toISOString() ?? null,
  convertedAt: send.convertedAt?.toISOString() ?? null,
});

export const pushRoutes = [
  defineRoute({
    method: 'get',
    path: '/push/sends',
    operationId: 'listPushSends',
    summary: 'List the pushes of an A/B test or of a message, newest first',
    tag: 'Pushes',
    auth: 'account',
    query: z
      .object({
        abTestId: z.uuid().optional(),
        notificationId: z.uuid().optional(),
        arm: z.enum(abTestArms).optional(),
        status: z.enum(pushSendStatuses).optional(),
        ...paginationQuery,
      })
      .refine((query) => query.abTestId !== undefined || query.notificationId !== undefined, {
        message: 'give abTestId or notificationId',
        path: ['notificationId'],
      }),
    responses: {
      200: { description: 'One page of sends', schema: pageOf(sendSchema).meta({ id: 'PushSendPage' }) },
      404: { description: 'No such test or message in this account' },
    },
    handler: async ({ query }, { em, account }) => {
      const page = await listPushSends(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toSendResponse) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/push/click',
    operationId: 'recordPushClick',
    summary: 'Record a click on a push (one counted click per send; idempotent)',
    tag: 'Pushes',
    auth: 'account',
    body: z.strictObject({ sendId: z.uuid(), clickedAt: z.iso.datetime({ offset: true }).optional() }).meta({ id: 'PushClick' }),
    responses: {
      200: { description: 'The send, with its (first) click', schema: sendSchema },
      400: {
        description: `The click cannot have happened: before the push was sent or in the future, beyond ${clickClockSkewMs / 1000} s of clock skew, or on a push not sent (\`invalid_click_time\`)`,
      },
      404: { description: 'No such send in this account' },
    },
    handler: async ({ body }, { em, account }) => ({
      status: 200,
      body: toSendResponse(await recordClick(em, account.id, { sendId: body.sendId, clickedAt: body.clickedAt ? new Date(body.clickedAt) : undefined })),
    }),
  }),
];
