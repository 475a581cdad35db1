import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiOverrideContext,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiSchemaObject,
} from 'zod-openapi';
import { consoleCookieName } from './console-session.ts';
import { errorBodySchema } from './error-body.ts';
import { honoursIdempotencyKey, idempotencyKeyPattern, replayedHeader } from './idempotency.ts';
import { isRateLimited } from './rate-limit.ts';
import type { RouteSpec } from './route.ts';
import { maxInputDepth, nulFreePattern } from './storable-text.ts';

const toOpenApiPath = (koaPath: string) => koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const commonErrors: Record<number, string> = {
  400: 'Invalid input (`validation_failed`, `invalid_json`)',
  500: 'Unexpected fault (`internal`)',
};

const idempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .regex(idempotencyKeyPattern)
    .optional()
    .meta({
      description:
        `Makes the call safe to retry: for 24 h, the same key with the same request answers the first answer again (with \`${replayedHeader}: true\`). ` +
        'Per account; admin routes share one scope. 1–255 visible ASCII characters.',
    }),
});

/**
 * The IETF RateLimit headers (src/http/rate-limit.ts), on every answer of a limited operation once the caller is
 * known: documented on each answer but a 401 (which comes first) and a 5xx (which the limiter itself may raise).
 */
const rateLimitHeaders = z.object({
  'RateLimit-Limit': z.int().min(1).meta({
    description: 'Requests a second this caller may make (API_RATE_LIMIT_PER_SECOND); a burst allowance per 10 s comes on top (API_RATE_LIMIT_BURST).',
    header: { id: 'RateLimit-Limit' },
  }),
  'RateLimit-Remaining': z.int().min(0).meta({
    description: 'Requests left in the current second, the burst allowance not counted (an estimate when several API instances serve the caller).',
    header: { id: 'RateLimit-Remaining' },
  }),
  'RateLimit-Reset': z.int().min(0).meta({
    description: 'Whole seconds until the current second’s allowance is back.',
    header: { id: 'RateLimit-Reset' },
  }),
});
const rateLimitedHeaders = rateLimitHeaders.extend({
  'Retry-After': z.int().min(1).meta({ description: 'Whole seconds to wait before retrying.', header: { id: 'Retry-After' } }),
});

/** The params schema narrowed to the names in this path, all required: an alias may carry fewer of them. */
function pathParamsOf(params: z.ZodType, path: string): z.ZodObject {
  const names = [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
  const shape = (params as z.ZodObject).shape as Record<string, z.ZodType>;
  return z.object(Object.fromEntries(names.map((name) => [name, (shape[name] as z.ZodOptional<z.ZodType> | undefined)?.unwrap?.() ?? shape[name] ?? z.string()])));
}

function operationFor(route: RouteSpec, path: string, isAlias: boolean): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const schema = Number(status) >= 400 ? errorBodySchema : spec.schema;
    responses[status] = {
      description: spec.description,
      ...(spec.mediaType && Number(status) < 400
        ? { content: { [spec.mediaType]: { schema: binarySchema } } }
        : schema
          ? { content: { 'application/json': { schema } } }
          : {}),
    };
  }
  for (const [status, description] of Object.entries(commonErrors)) {
    responses[status] ??= { description, content: { 'application/json': { schema: errorBodySchema } } };
  }
  const error = (description: string) => ({ description, content: { 'application/json': { schema: errorBodySchema } } });
  if (route.auth !== 'none') {
    responses['401'] ??= error('Missing or invalid credentials (`unauthorized`)');
    if (route.auth === 'account' && route.method !== 'get') {
      responses['403'] ??= error('Carried by the console’s cookie, but not from its own pages or without `X-Console: 1` (`csrf_refused`)');
    }
    responses['503'] ??= error('Postgres or Temporal is out of reach (`service_unavailable`); retry after Retry-After');
  }
  if (path.includes(':accountId')) responses['404'] ??= error('Not this key’s account, or no such record in it (`not_found`)');
  if (honoursIdempotencyKey(route)) {
    const alsoError = (status: string, description: string) => {
      const known = responses[status];
      responses[status] = known ? { ...known, description: `${known.description}; or ${description}` } : error(description);
    };
    alsoError('409', 'a request with this Idempotency-Key is still running (`idempotency_key_in_use`); retry after Retry-After');
    alsoError('422', 'this Idempotency-Key was used with a different request (`idempotency_key_reused`)');
  }
  if (isRateLimited(route.auth)) {
    const caller = route.auth === 'admin' ? 'the admin token' : 'this account';
    responses['429'] ??= error(`Too many requests from ${caller} (\`rate_limited\`); retry after Retry-After`);
    for (const [status, response] of Object.entries(responses)) {
      if (status === '401' || Number(status) >= 500) continue;
      responses[status] = { ...response, headers: status === '429' ? rateLimitedHeaders : rateLimitHeaders };
    }
  }
  return {
    operationId: isAlias ? `${route.operationId}ViaAlias${path.replace(/[^A-Za-z]/g, '')}` : route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(isAlias ? { description: `Alias of \`${route.method.toUpperCase()} ${toOpenApiPath(route.path)}\`.` } : {}),
    security: securityOf(route.auth),
    requestParams: {
      ...(route.params ? { path: pathParamsOf(route.params, path) } : {}),
      ...(route.query ? { query: route.query as z.ZodObject } : {}),
      ...headerParamsOf(route),
    },
    ...requestBodyOf(route),
    responses: responses,
  };
}

/** Raw bytes, as a streamed body or a media response carries them. */
const binarySchema = z.string().meta({ format: 'binary', description: 'Raw bytes.' });

function requestBodyOf(route: RouteSpec): Pick<ZodOpenApiOperationObject, 'requestBody'> {
  if (route.streamBody) {
    const { mediaTypes, description } = route.streamBody;
    return { requestBody: { required: true, description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: binarySchema }])) } };
  }
  return route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {};
}

/** Who may call: nobody in particular, the admin token, or an account by its API key or its console session. */
function securityOf(auth: RouteSpec['auth']): Array<Record<string, string[]>> {
  if (auth === 'none') return [];
  if (auth === 'admin') return [{ adminToken: [] }];
  return [{ apiKey: [] }, { consoleSession: [] }];
}

/** The route's own documented headers, and Idempotency-Key where the route honours it. */
function headerParamsOf(route: RouteSpec): { header?: z.ZodObject } {
  const own = route.documentedHeaders;
  if (!honoursIdempotencyKey(route)) return own ? { header: own } : {};
  return { header: own ? own.extend(idempotencyKeyHeader.shape) : idempotencyKeyHeader };
}

const jsonValueRef = { $ref: '#/components/schemas/JsonValue' };

/** A free-form request value (`about` items, `attributes`, `raw`) as the edge accepts it: any JSON without NUL. */
const jsonValueSchema: ZodOpenApiSchemaObject = {
  description: `Any JSON value. No string or key may contain U+0000 or a lone surrogate; at most ${maxInputDepth} levels of nesting.`,
  anyOf: [
    { type: ['null', 'boolean', 'number'] },
    { type: 'string', pattern: nulFreePattern },
    { type: 'array', items: jsonValueRef },
    { type: 'object', propertyNames: { type: 'string', pattern: nulFreePattern }, additionalProperties: jsonValueRef },
  ],
};

/**
 * Request schemas say what the edge refuses before zod runs (src/http/storable-text.ts): every string carries the
 * NUL-free pattern (beside its own pattern, if any; a format such as uuid already excludes NUL), and free-form values
 * are JsonValue. Lone surrogates need no pattern: they cannot be written as UTF-8 at all.
 */
function describeStorableText({ zodSchema, jsonSchema, io }: ZodOpenApiOverrideContext): void {
  if (io !== 'input') return;
  const type = zodSchema._zod.def.type;
  if (type === 'unknown' || type === 'any') {
    Object.assign(jsonSchema, jsonValueRef);
  } else if (jsonSchema.type === 'string' && jsonSchema.format === undefined && jsonSchema.enum === undefined) {
    // The hook may see one schema more than once; the pattern is added once.
    const patterns = [jsonSchema.pattern, ...(jsonSchema.allOf ?? []).map((part) => (part as { pattern?: string }).pattern)];
    if (patterns.includes(nulFreePattern)) return;
    if (jsonSchema.pattern === undefined) jsonSchema.pattern = nulFreePattern;
    else jsonSchema.allOf = [...(jsonSchema.allOf ?? []), { pattern: nulFreePattern }];
  }
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate each request. */
export function buildOpenApiDocument(routes: RouteSpec[]) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    for (const [index, path] of [route.path, ...(route.aliases ?? [])].entries()) {
      const openApiPath = toOpenApiPath(path);
      paths[openApiPath] = { ...paths[openApiPath], [route.method]: operationFor(route, path, index > 0) };
    }
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Rich push orchestration API',
        version: '1.0.0',
        description: 'Messages, recording jobs, A/B tests, event ingest and outbound webhooks, run durably on Temporal.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An account API key (`rpk_…`).' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator ADMIN_TOKEN.' },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: consoleCookieName(false),
            description:
              'The console’s session cookie, set by `POST /console/session` (`__Host-richpush_console` over https). A request it carries that changes state must come from the console’s own pages and send `X-Console: 1` (else 403 `csrf_refused`).',
          },
        },
        schemas: { JsonValue: jsonValueSchema },
      },
      paths,
    },
    { override: describeStorableText },
  );
}
