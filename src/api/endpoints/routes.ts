import { createEndpoint } from '../../domain/endpoints/create-endpoint.ts';
import { deleteEndpoint } from '../../domain/endpoints/delete-endpoint.ts';
import { findOwnedEndpoint } from '../../domain/endpoints/find-owned-endpoint.ts';
import { listEndpoints } from '../../domain/endpoints/list-endpoints.ts';
import { rotateEndpointSecret } from '../../domain/endpoints/rotate-endpoint-secret.ts';
import { sendTestEvent } from '../../domain/endpoints/send-test-event.ts';
import { updateEndpoint } from '../../domain/endpoints/update-endpoint.ts';
import { defineRoute } from '../../http/route.ts';
import { endpointDeps, publishDeps } from '../request-deps.ts';
import { accountIdParam } from '../shared-schemas.ts';
import {
  createdEndpointSchema,
  createEndpointBody,
  endpointListSchema,
  endpointParams,
  endpointSchema,
  rotatedSecretSchema,
  testEventSchema,
  toEndpointResponse,
  updateEndpointBody,
} from './schemas.ts';

const tag = 'Endpoints';
const base = '/accounts/:accountId/endpoints';
const notFound = { description: 'No such endpoint in this account' };
const invalidUrl = { description: 'The URL is not https, has credentials, or resolves to a blocked address (`invalid_url`)' };


export const endpointRoutes = [
  defineRoute({
    method: 'post',
    path: base,
    operationId: 'createEndpoint',
    summary: 'Register an HTTPS endpoint for outbound events',
    tag,
    auth: 'account',
    params: accountIdParam,
    body: createEndpointBody,
    responses: { 201: { description: 'The endpoint, with its signing secret shown once', schema: createdEndpointSchema }, 422: invalidUrl },
    handler: async ({ body }, ctx) => {
      const { endpoint, secret } = await createEndpoint(endpointDeps(ctx), ctx.account.id, body);
      return { status: 201, body: { ...toEndpointResponse(endpoint), secret } };
    },
  }),
  defineRoute({
    method: 'get',
    path: base,
    operationId: 'listEndpoints',
    summary: 'List the account’s endpoints (never their secrets)',
    tag,
    auth: 'account',
    params: accountIdParam,
    responses: { 200: { description: 'Every live endpoint, newest first', schema: endpointListSchema } },
    handler: async (_input, { em, account }) => ({
      status: 200,
      body: { endpoints: (await listEndpoints(em, account.id)).map(toEndpointResponse) },
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:endpointId`,
    operationId: 'getEndpoint',
    summary: 'Get one endpoint',
    tag,
    auth: 'account',
    params: endpointParams,
    responses: { 200: { description: 'The endpoint', schema: endpointSchema }, 404: notFound },
    handler: async ({ params }, { em, account }) => ({
      status: 200,
      body: toEndpointResponse(await findOwnedEndpoint(em, account.id, params.endpointId)),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:endpointId`,
    operationId: 'updateEndpoint',
    summary: 'Change an endpoint’s url, event types, description or status',
    tag,
    auth: 'account',
    params: endpointParams,
    body: updateEndpointBody,
    responses: { 200: { description: 'The updated endpoint', schema: endpointSchema }, 404: notFound, 422: invalidUrl },
    handler: async ({ params, body }, ctx) => ({
      status: 200,
      body: toEndpointResponse(await updateEndpoint(endpointDeps(ctx), ctx.account.id, params.endpointId, body)),
    }),
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/:endpointId`,
    operationId: 'deleteEndpoint',
    summary: 'Delete an endpoint; it receives nothing more',
    tag,
    auth: 'account',
    params: endpointParams,
    responses: { 204: { description: 'Deleted' }, 404: notFound },
    handler: async ({ params }, { em, account }) => {
      await deleteEndpoint(em, account.id, params.endpointId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:endpointId/secret/rotate`,
    operationId: 'rotateEndpointSecret',
    summary: 'Issue a new signing secret; the old one keeps signing for 24 hours',
    tag,
    auth: 'account',
    params: endpointParams,
    responses: { 200: { description: 'The new secret, shown once', schema: rotatedSecretSchema }, 404: notFound },
    handler: async ({ params }, ctx) => {
      const { endpoint, secret } = await rotateEndpointSecret(endpointDeps(ctx), ctx.account.id, params.endpointId);
      return { status: 200, body: { endpointId: endpoint.id, secret, previousSecretExpiresAt: endpoint.previousSecretExpiresAt!.toISOString() } };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:endpointId/test`,
    operationId: 'sendTestEvent',
    summary: 'Send a webhook.test event to this endpoint',
    tag,
    auth: 'account',
    params: endpointParams,
    responses: {
      202: { description: 'The event is on its way', schema: testEventSchema },
      404: notFound,
      409: { description: 'The endpoint is disabled (`invalid_state`)' },
    },
    handler: async ({ params }, ctx) => {
      const { eventId } = await sendTestEvent(publishDeps(ctx), ctx.account.id, params.endpointId);
      return { status: 202, body: { eventId, endpointId: params.endpointId } };
    },
  }),
];
