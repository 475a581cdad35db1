import { buildOpenApiDocument } from '../../http/openapi.ts';
import { defineRoute, type RouteSpec } from '../../http/route.ts';

/** Serves the OpenAPI document of every route, generated once from their zod schemas. */
export function openApiRoute(allRoutes: () => RouteSpec[]): RouteSpec {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  return defineRoute({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openApiDocument',
    summary: 'This API’s OpenAPI 3.1 document',
    tag: 'Operations',
    auth: 'none',
    responses: { 200: { description: 'The document' } },
    handler: async () => {
      document ??= buildOpenApiDocument(allRoutes());
      return { status: 200, body: document };
    },
  });
}
