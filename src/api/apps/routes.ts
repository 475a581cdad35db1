import { z } from 'zod';
import { createApp } from '../../domain/apps/create-app.ts';
import { findOwnedApp } from '../../domain/apps/find-owned-app.ts';
import { listApps } from '../../domain/apps/list-apps.ts';
import { updateApp } from '../../domain/apps/update-app.ts';
import { defineRoute } from '../../http/route.ts';
import type { App } from '../../persistence/entities/app.ts';
import { maxCapHours, maxCapPushes } from '../../domain/sends/frequency-cap.ts';
import { accountIdParam, pageOf, paginationQuery, timestamp, timeZoneSchema, trimmedText, toPageResponse } from '../shared-schemas.ts';

const defaultTimezone = timeZoneSchema.meta({ description: 'The IANA time zone of the app’s devices that name none (UTC unless set).' });

const frequencyCap = z
  .strictObject({
    max: z.number().int().min(1).max(maxCapPushes).meta({ description: `Pushes a device may get in the window (1 to ${maxCapPushes}).` }),
    hours: z.number().int().min(1).max(maxCapHours).meta({ description: `The window, in hours (1 to ${maxCapHours}).` }),
  })
  .nullable()
  .meta({
    id: 'FrequencyCap',
    description:
      'At most `max` non-test pushes per device in any `hours`, across the app’s campaign sends and A/B remainders; a device over it is recorded `capped` and never sent later. A/B arms count toward it but ignore it. Null: no cap (the default).',
  });

const clockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day as HH:MM, 00:00 to 23:59');

const quietHours = z
  .strictObject({
    start: clockTime.meta({ description: 'When quiet hours begin, in each device’s local time (HH:MM).' }),
    end: clockTime.meta({ description: 'When they end (HH:MM); before `start` means the next day.' }),
    action: z.enum(['delay', 'skip']).meta({ description: '`delay`: hold the push until they end, if the message has not expired by then; `skip`: record it `quiet`.' }),
  })
  .refine((quiet) => quiet.start !== quiet.end, { message: 'start and end must differ', path: ['end'] })
  .nullable()
  .meta({
    id: 'QuietHours',
    description: 'No push of a campaign send (or an experience) reaches a device in these local hours (its `timezone`, else the app’s `defaultTimezone`). Null: none (the default).',
  });

const appSettings = { defaultTimezone: defaultTimezone.optional(), frequencyCap: frequencyCap.optional(), quietHours: quietHours.optional() };

const createAppBody = z.strictObject({ name: trimmedText(200), ...appSettings }).meta({ id: 'CreateApp' });

const updateAppBody = z
  .strictObject({ name: trimmedText(200).optional(), ...appSettings })
  .refine((changes) => Object.keys(changes).length > 0, 'send at least one of name, defaultTimezone, frequencyCap, quietHours')
  .meta({ id: 'UpdateApp', minProperties: 1 });

const appParams = z.object({ accountId: z.uuid(), appId: z.uuid() });

const appSchema = z
  .object({ appId: z.uuid(), accountId: z.uuid(), name: z.string(), defaultTimezone: z.string(), frequencyCap, quietHours, createdAt: timestamp })
  .meta({ id: 'App' });

const toAppResponse = (app: App): z.infer<typeof appSchema> => ({
  appId: app.id,
  accountId: app.accountId,
  name: app.name,
  defaultTimezone: app.defaultTimezone,
  frequencyCap: app.frequencyCap ?? null,
  quietHours: app.quietHours ?? null,
  createdAt: app.createdAt.toISOString(),
});

const notFound = { description: 'No such app in this key’s account' };

const tag = 'Apps';

export const appRoutes = [
  defineRoute({
    method: 'post',
    path: '/accounts/:accountId/apps',
    operationId: 'createApp',
    summary: 'Create an app in the account',
    tag,
    auth: 'account',
    params: accountIdParam,
    body: createAppBody,
    responses: { 201: { description: 'The new app', schema: appSchema }, 404: { description: 'Not this key’s account' } },
    handler: async ({ body }, { em, account }) => ({ status: 201, body: toAppResponse(await createApp(em, account.id, body)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/accounts/:accountId/apps',
    operationId: 'listApps',
    summary: 'List the account’s apps, newest first',
    tag,
    auth: 'account',
    params: accountIdParam,
    query: z.object(paginationQuery),
    responses: {
      200: { description: 'One page of apps', schema: pageOf(appSchema).meta({ id: 'AppPage' }) },
      404: { description: 'Not this key’s account' },
    },
    handler: async ({ query }, { em, account }) => {
      const page = await listApps(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toAppResponse) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/accounts/:accountId/apps/:appId',
    operationId: 'getApp',
    summary: 'Get one app and its settings',
    tag,
    auth: 'account',
    params: appParams,
    responses: { 200: { description: 'The app', schema: appSchema }, 404: notFound },
    handler: async ({ params }, { em, account }) => ({ status: 200, body: toAppResponse(await findOwnedApp(em, account.id, params.appId)) }),
  }),
  defineRoute({
    method: 'patch',
    path: '/accounts/:accountId/apps/:appId',
    operationId: 'updateApp',
    summary: 'Change an app’s name or settings',
    tag,
    auth: 'account',
    params: appParams,
    body: updateAppBody,
    responses: { 200: { description: 'The app as changed', schema: appSchema }, 404: notFound },
    handler: async ({ params, body }, { em, account }) => ({ status: 200, body: toAppResponse(await updateApp(em, account.id, params.appId, body)) }),
  }),
];
