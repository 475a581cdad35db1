import type { EntityManager } from '@mikro-orm/postgresql';
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { Account } from '../persistence/entities/account.ts';
import type { ApiServices } from './services.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type AuthKind = 'none' | 'admin' | 'account';

/** What a handler learns about the `Idempotency-Key` its request carries. */
export interface Idempotency {
  key: string;
  /**
   * A UUID naming this logical request: the same on every retry with the key (also after a crash), a new one once
   * the key has expired. Pass it where a downstream call dedupes, such as a Temporal update id.
   */
  operationId: string;
}

export interface RequestContext<A extends AuthKind = AuthKind> {
  em: EntityManager;
  requestId: string;
  request: { headers: IncomingHttpHeaders; origin: string };
  account: A extends 'account' ? Account : undefined;
  services: ApiServices;
  /** Set when the request carries an `Idempotency-Key` the route honours (src/http/idempotency.ts). */
  idempotency?: Idempotency | undefined;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
}

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * One HTTP operation: its schemas (which also generate the OpenAPI document) and a thin handler that calls a
 * domain function. Parsing, authentication and account scoping happen before the handler runs.
 */
export interface RouteSpec<
  A extends AuthKind = AuthKind,
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: HttpMethod;
  /** Koa path, e.g. `/accounts/:accountId/apps`. */
  path: string;
  /** Extra paths served by the same operation, e.g. a documented and a sample variant of one path. */
  aliases?: string[];
  operationId: string;
  summary: string;
  tag: string;
  auth: A;
  params?: P;
  query?: Q;
  body?: B;
  /** Body size limit in bytes (default 1 MB). */
  bodyLimit?: number;
  /**
   * Hand the handler a reader of the body's exact bytes (`readRaw`, with the size limit) instead of parsing it, e.g.
   * to verify a signature over them after cheaper checks. `body` then only documents the expected shape. The bytes
   * are read once: with an Idempotency-Key the router reads them first (for the fingerprint) and `readRaw` hands
   * them over.
   */
  rawBody?: boolean;
  /**
   * Request headers the operation needs, shown in the OpenAPI document. The router does not check them: the handler
   * does, where the order of its answers matters (the ingest route's signature headers go to the Standard Webhooks
   * verifier, after the inbound key is known, so an unknown key is 404 and a missing signature 401).
   */
  documentedHeaders?: z.ZodObject;
  /**
   * Run on the API's interactive Postgres pool instead of the main one: a recording-job step, which a user waits on,
   * then never queues for a connection behind ingest acceptance and other bulk requests (docs/adr/0045-the-job-routes-have-a-postgres-pool-of-their-own.md).
   */
  interactive?: boolean;
  /**
   * The path parameter that carries a link's token (an artist's link, `/artist/:token/…`), on a route that takes no
   * credentials: the router rate-limits it per client address and per token (src/http/rate-limit.ts).
   */
  linkTokenParam?: string;
  responses: Record<number, ResponseSpec>;
  handler: (
    input: { params: Infer<P>; query: Infer<Q>; body: Infer<B>; readRaw: () => Promise<Buffer> },
    ctx: RequestContext<A>,
  ) => Promise<RouteResult>;
}

export function defineRoute<
  A extends AuthKind,
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<A, P, Q, B>): RouteSpec {
  return spec;
}
