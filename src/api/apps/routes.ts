import { z } from 'zod';
import { createApp } from '../../domain/apps/create-app.ts';
import { listApps } from '../../domain/apps/list-apps.ts';
import { defineRoute } from '../../http/route.ts';
import type { App } from '../../persistence/entities/app.ts';
import { accountIdParam, pageOf, paginationQuery, timestamp, trimmedText, toPageResponse } from '../shared-schemas.ts';

const createAppBody = z.strictObject({ name: trimmedText(200) }).meta({ id: 'CreateApp' });

const appSchema = z
  .object({ appId: z.uuid(), accountId: z.uuid(), name: z.string(), createdAt: timestamp })
  .meta({ id: 'App' });

const toAppResponse = (app: App): z.infer<typeof appSchema> => ({
  appId: app.id,
  accountId: app.accountId,
  name: app.name,
  createdAt: app.createdAt.toISOString(),
});

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
];
