import { listDeliveries } from '../../domain/deliveries/list-deliveries.ts';
import { recoverFailedDeliveries } from '../../domain/deliveries/recover-failed-deliveries.ts';
import { redeliver } from '../../domain/deliveries/redeliver.ts';
import { defineRoute } from '../../http/route.ts';
import { endpointParams } from '../endpoints/schemas.ts';
import { publishDeps } from '../request-deps.ts';
import { deliveryPage, deliverySchema, listDeliveriesQuery, recoverBody, recoveredSchema, redeliverParams, toDeliveryResponse, toDeliveryWithAttempts } from './schemas.ts';
import { toPageResponse } from '../shared-schemas.ts';

const tag = 'Deliveries';

export const deliveryRoutes = [
  defineRoute({
    method: 'get',
    path: '/accounts/:accountId/endpoints/:endpointId/deliveries',
    operationId: 'listDeliveries',
    summary: 'List an endpoint’s deliveries, newest first, with their attempts',
    tag,
    auth: 'account',
    params: endpointParams,
    query: listDeliveriesQuery,
    responses: { 200: { description: 'One page of deliveries', schema: deliveryPage }, 404: { description: 'No such endpoint in this account' } },
    handler: async ({ params, query }, { em, account }) => {
      const page = await listDeliveries(em, account.id, params.endpointId, query);
      return { status: 200, body: toPageResponse(page, toDeliveryWithAttempts) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/accounts/:accountId/deliveries/:deliveryId/redeliver',
    aliases: ['/accounts/:accountId/endpoints/:endpointId/deliveries/:deliveryId/redeliver'],
    operationId: 'redeliver',
    summary: 'Send a delivery’s event again, under the same envelope id',
    tag,
    auth: 'account',
    params: redeliverParams,
    responses: {
      202: { description: 'A new delivery of the same event has started', schema: deliverySchema },
      404: { description: 'No such delivery in this account' },
      409: { description: 'The endpoint is disabled (`invalid_state`)' },
    },
    handler: async ({ params }, ctx) => ({
      status: 202,
      body: toDeliveryResponse(await redeliver(publishDeps(ctx), ctx.account.id, params.deliveryId, params.endpointId)),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/accounts/:accountId/endpoints/:endpointId/recover',
    operationId: 'recoverFailedDeliveries',
    summary: 'Send again every failed delivery to this endpoint since a time that nothing has redelivered yet',
    tag,
    auth: 'account',
    params: endpointParams,
    body: recoverBody,
    responses: {
      202: { description: 'The redeliveries have started', schema: recoveredSchema },
      404: { description: 'No such endpoint in this account' },
      409: { description: 'The endpoint is disabled (`invalid_state`)' },
    },
    handler: async ({ params, body }, ctx) => {
      const { deliveries, more } = await recoverFailedDeliveries(publishDeps(ctx), ctx.account.id, params.endpointId, new Date(body.since));
      return { status: 202, body: { recovered: deliveries.length, deliveries: deliveries.map(toDeliveryResponse), more } };
    },
  }),
];
