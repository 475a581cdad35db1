import { listDeliveries } from '../../domain/deliveries/list-deliveries.ts';
import { redeliver } from '../../domain/deliveries/redeliver.ts';
import { defineRoute } from '../../http/route.ts';
import { endpointParams } from '../endpoints/schemas.ts';
import { publishDeps } from '../request-deps.ts';
import { deliveryPage, deliverySchema, listDeliveriesQuery, redeliverParams, toDeliveryResponse, toDeliveryWithAttempts } from './schemas.ts';
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
];
