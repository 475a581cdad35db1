import { createSlotFromStock } from '../../domain/stock/create-slot-from-stock.ts';
import { createStock } from '../../domain/stock/create-stock.ts';
import { listStock } from '../../domain/stock/list-stock.ts';
import { defineRoute } from '../../http/route.ts';
import { fileDeps } from '../request-deps.ts';
import { toNotificationResponse } from '../notifications/schemas.ts';
import { createStockBody, listStockQuery, slotFromStockBody, slotSchema, stockIdQuery, stockPage, stockSchema, toStockResponse } from './schemas.ts';
import { toPageResponse } from '../shared-schemas.ts';

const tag = 'Stock';

export const stockRoutes = [
  defineRoute({
    method: 'post',
    path: '/stock/create',
    operationId: 'createStock',
    summary: 'Add a stock recording to an app',
    tag,
    auth: 'account',
    body: createStockBody,
    responses: {
      201: { description: 'The stock item', schema: stockSchema },
      404: { description: 'The appId is not one of the account’s apps, or the fileId none of its files' },
      422: { description: 'The file was rejected (`file_rejected`), or the URL may not be fetched (`invalid_url`)' },
      503: { description: 'This deployment cannot process recordings now (`media_unavailable`); or Postgres or Temporal is out of reach' },
    },
    handler: async ({ body }, ctx) => {
      const { fileId, url, ...fields } = body;
      const recording = fileId !== undefined ? { fileId } : { url: url! };
      return { status: 201, body: toStockResponse(await createStock({ ...fileDeps(ctx), outbound: ctx.services.outbound }, ctx.account.id, { ...fields, recording })) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/stock/list',
    operationId: 'listStock',
    summary: 'List stock recordings, newest first',
    tag,
    auth: 'account',
    query: listStockQuery,
    responses: { 200: { description: 'One page of stock', schema: stockPage } },
    handler: async ({ query }, { em, account }) => {
      const page = await listStock(em, account.id, query);
      return { status: 200, body: toPageResponse(page, toStockResponse) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/slot/create/fromStock',
    aliases: ['/slot/fromStock'],
    operationId: 'createSlotFromStock',
    summary: 'Make a READY message that plays a stock recording',
    tag,
    auth: 'account',
    query: stockIdQuery,
    body: slotFromStockBody,
    responses: {
      201: { description: 'The slot and its message', schema: slotSchema },
      404: { description: 'No such stock item or app in this account' },
      409: { description: 'The stock’s file is still processing (`file_not_ready`)' },
      422: { description: 'The filterId names no segment of the app (`unknown_segment`), or the stock’s file was rejected (`file_rejected`)' },
    },
    handler: async ({ query, body }, { em, account }) => {
      const { slot, notification } = await createSlotFromStock(em, account.id, query.stockId, body);
      return { status: 201, body: { slotId: slot.id, stockId: slot.stockId, notification: toNotificationResponse(notification) } };
    },
  }),
];
