import { Router } from '@koa/router';
import type { Context } from 'koa';
import type {} from './request-state.ts';
import { authenticate, checkPathAccount } from './auth.ts';
import { parseJsonBody, readRawBody } from './body.ts';
import { idempotencyKeyOf, runIdempotently } from './idempotency.ts';
import { applyLinkRateLimit, applyRateLimit } from './rate-limit.ts';
import type { Idempotency, RequestContext, RouteSpec } from './route.ts';
import type { ApiServices } from './services.ts';
import { parseInput } from './validate.ts';

const defaultBodyLimit = 1024 * 1024;

async function runRoute(route: RouteSpec, ctx: Context, services: ApiServices): Promise<void> {
  const em = (route.interactive ? services.interactiveOrm : services.orm).em.fork();
  const rawParams = (ctx as Context & { params?: Record<string, string> }).params ?? {};
  const account = await authenticate(route.auth, ctx, em, services);
  ctx.state.account = account;
  // After authentication, so the limit is the caller's (a 401 counts against no one); before the input is read, so
  // a flood is refused cheaply. From here on every answer carries the RateLimit headers.
  await applyRateLimit(route.auth, account, ctx, services);
  if (route.linkTokenParam !== undefined) await applyLinkRateLimit(rawParams[route.linkTokenParam] ?? '', ctx, services);
  checkPathAccount(account, rawParams.accountId);
  const idempotencyKey = idempotencyKeyOf(route, ctx);

  const params = route.params ? parseInput(route.params, rawParams, 'params') : undefined;
  const query = route.query ? parseInput(route.query, ctx.query, 'query') : undefined;
  let rawBody: Promise<Buffer> | undefined;
  const readRaw = () => (rawBody ??= readRawBody(ctx.req, route.bodyLimit ?? defaultBodyLimit));
  let body: unknown;
  if (route.body && !route.rawBody) body = parseInput(route.body, parseJsonBody(await readRaw(), ctx.get('content-type') || undefined), 'body');

  const context: RequestContext = {
    em,
    requestId: ctx.state.requestId,
    // Koa 3 gives ctx.origin the Origin header; the address this request was made to is protocol + Host.
    request: { headers: ctx.headers, origin: `${ctx.protocol}://${ctx.host}` },
    account,
    services,
  };
  const run = (idempotency?: Idempotency) => route.handler({ params, query, body, readRaw, bodyStream: ctx.req }, { ...context, idempotency });
  const result = idempotencyKey === undefined
    ? await run()
    : await runIdempotently(
        { key: idempotencyKey, route, account, method: ctx.method, url: ctx.originalUrl, body: await readRaw() },
        { em, services, requestId: context.requestId },
        run,
      );
  ctx.status = result.status;
  if (result.headers) ctx.set(result.headers);
  if (result.body !== undefined) ctx.body = result.body;
}

/** Mounts every route; a path served under another method answers 405 through allowedMethods. */
export function buildRouter(routes: RouteSpec[], services: ApiServices): Router {
  const router = new Router();
  for (const route of routes) {
    for (const path of [route.path, ...(route.aliases ?? [])]) {
      router[route.method](path, (ctx) => runRoute(route, ctx, services));
    }
  }
  return router;
}
