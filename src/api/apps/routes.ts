import { z } from 'zod';
import { createApp } from '../../domain/apps/create-app.ts';
import { findOwnedApp } from '../../domain/apps/find-owned-app.ts';
import { listApps } from '../../domain/apps/list-apps.ts';
import { updateApp } from '../../domain/apps/update-app.ts';
import { defineRoute } from '../../http/route.ts';
import type { App } from '../../persistence/entities/app.ts';
import { accountIdParam, pageOf, paginationQuery, timestamp, timeZoneSchema, trimmedText, toPageResponse } from '../shared-schemas.ts';

const defaultTimezone = timeZoneSchema.meta({ description: 'The IANA time zone of the app’s devices that name none (UTC unless set).' });

const createAppBody = z.strictObject({ name: trimmedText(200), defaultTimezone: defaultTimezone.optional() }).meta({ id: 'CreateApp' });

const updateAppBody = z
  .strictObject({ name: trimmedText(200).optional(), defaultTimezone: defaultTimezone.optional() })
  .refine((changes) => Object.keys(changes).length > 0, 'send at least one of name, defaultTimezone')
  .meta({ id: 'UpdateApp', minProperties: 1 });

const appParams = z.object({ accountId: z.uuid(), appId: z.uuid() });

const appSchema = z
  .object({ appId: z.uuid(), accountId: z.uuid(), name: z.string(), defaultTimezone: z.string(), createdAt: timestamp })
  .meta({ id: 'App' });

const toAppResponse = (app: App): z.infer<typeof appSchema> => ({
  appId: app.id,
  accountId: app.accountId,
  name: app.name,
  defaultTimezone: app.defaultTimezone,
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
