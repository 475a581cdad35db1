import { createConnection } from '../../domain/connections/create-connection.ts';
import { findOwnedConnection, listConnections } from '../../domain/connections/find-owned-connection.ts';
import { deleteConnection, rotateConnectionSecret } from '../../domain/connections/rotate-connection-secret.ts';
import { updateConnection } from '../../domain/connections/update-connection.ts';
import { defineRoute, type RequestContext } from '../../http/route.ts';
import { accountIdParam } from '../shared-schemas.ts';
import {
  connectionListSchema,
  connectionParams,
  connectionSchema,
  createConnectionBody,
  createdConnectionSchema,
  rotatedConnectionSecretSchema,
  toConnectionResponse,
  updateConnectionBody,
} from './schemas.ts';

const tag = 'Connections';
const base = '/accounts/:accountId/connections';
const notFound = { description: 'No such connection in this account' };
const invalidUrl = { description: 'outboundUrl is not https, has credentials, a query or a fragment, or resolves to a blocked address (`invalid_url`)' };
const deps = ({ em, services }: RequestContext) => ({ em, secrets: services.secrets, outbound: services.outbound });
const baseUrlOf = ({ services, request }: RequestContext) => services.ingest.baseUrl ?? request.origin;
/** This instance's ingest path sees the change at once; other instances within their cache's second (docs/adr/0033-ingest-reads-postgres-once-per-request.md). */
const forgetInbound = ({ services }: RequestContext, connectionId: string) => services.ingest.connections.forget(connectionId);

export const connectionRoutes = [
  defineRoute({
    method: 'post',
    path: base,
    operationId: 'createConnection',
    summary: 'Connect a client system: returns its inbound URL and signing secret',
    tag,
    auth: 'account',
    params: accountIdParam,
    body: createConnectionBody,
    responses: { 201: { description: 'The connection, with its signing secret shown once', schema: createdConnectionSchema }, 422: invalidUrl },
    handler: async ({ body }, ctx) => {
      const { connection, signingSecret } = await createConnection(deps(ctx), ctx.account.id, body);
      return { status: 201, body: { ...toConnectionResponse(connection, baseUrlOf(ctx)), inboundKey: connection.inboundKey, signingSecret } };
    },
  }),
  defineRoute({
    method: 'get',
    path: base,
    operationId: 'listConnections',
    summary: 'List the account’s connections (never their secrets or credentials)',
    tag,
    auth: 'account',
    params: accountIdParam,
    responses: { 200: { description: 'Every connection, newest first', schema: connectionListSchema } },
    handler: async (_input, ctx) => ({
      status: 200,
      body: { connections: (await listConnections(ctx.em, ctx.account.id)).map((connection) => toConnectionResponse(connection, baseUrlOf(ctx))) },
    }),
  }),
  defineRoute({
    method: 'get',
    path: `${base}/:connectionId`,
    operationId: 'getConnection',
    summary: 'Get one connection',
    tag,
    auth: 'account',
    params: connectionParams,
    responses: { 200: { description: 'The connection', schema: connectionSchema }, 404: notFound },
    handler: async ({ params }, ctx) => ({
      status: 200,
      body: toConnectionResponse(await findOwnedConnection(ctx.em, ctx.account.id, params.connectionId), baseUrlOf(ctx)),
    }),
  }),
  defineRoute({
    method: 'patch',
    path: `${base}/:connectionId`,
    operationId: 'updateConnection',
    summary: 'Change label, status, mapping or event configuration, or set the outbound credential or URL',
    tag,
    auth: 'account',
    params: connectionParams,
    body: updateConnectionBody,
    responses: { 200: { description: 'The updated connection', schema: connectionSchema }, 404: notFound, 422: invalidUrl },
    handler: async ({ params, body }, ctx) => {
      const connection = await updateConnection(deps(ctx), ctx.account.id, params.connectionId, body);
      forgetInbound(ctx, connection.id);
      return { status: 200, body: toConnectionResponse(connection, baseUrlOf(ctx)) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${base}/:connectionId`,
    operationId: 'deleteConnection',
    summary: 'Remove a connection; its inbound URL stops working',
    tag,
    auth: 'account',
    params: connectionParams,
    responses: { 204: { description: 'Removed' }, 404: notFound },
    handler: async ({ params }, ctx) => {
      await deleteConnection(ctx, ctx.account.id, params.connectionId);
      forgetInbound(ctx, params.connectionId);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${base}/:connectionId/secret/rotate`,
    operationId: 'rotateConnectionSecret',
    summary: 'Issue a new signing secret; the old one is accepted for 24 more hours',
    tag,
    auth: 'account',
    params: connectionParams,
    responses: { 200: { description: 'The new secret, shown once', schema: rotatedConnectionSecretSchema }, 404: notFound },
    handler: async ({ params }, ctx) => {
      const { connection, signingSecret } = await rotateConnectionSecret(deps(ctx), ctx.account.id, params.connectionId);
      forgetInbound(ctx, connection.id);
      return {
        status: 200,
        body: { connectionId: connection.id, signingSecret, previousSecretExpiresAt: connection.previousSigningSecretExpiresAt!.toISOString() },
      };
    },
  }),
];
