import { routes } from '../api/routes.ts';
import { buildOpenApiDocument } from '../http/openapi.ts';

// Prints the OpenAPI document generated from the route schemas, for tools that want it without a running server.
process.stdout.write(`${JSON.stringify(buildOpenApiDocument(routes), null, 2)}\n`);
