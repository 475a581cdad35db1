import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honours a caller's X-Request-Id when it is safe to log, otherwise makes one; echoes it on every response. */
export const requestId: Middleware = async (ctx, next) => {
  const sent = ctx.get('x-request-id');
  ctx.state.requestId = acceptableRequestId.test(sent) ? sent : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
};
