import type { Middleware } from 'koa';
import type { Logger } from '../logger.ts';

/**
 * The path as logged: an ingest path's inbound key, which alone lets anyone post to the connection's URL (unsigned
 * posts are refused, but the key is still the connection's address), and an artist's link's token, which opens its
 * job's artist routes, are replaced by `[redacted]`.
 */
export const loggedPath = (path: string) => path.replace(/^(\/v1\/in\/|\/artist\/)[^/]+/, '$1[redacted]');

/**
 * One structured line per request. The query string is left out: it can carry ids a caller considers private. The
 * path is kept (its ids help find a request), but not an inbound key or a link's token.
 */
export function accessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: loggedPath(ctx.path),
          status: ctx.status,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          accountId: ctx.state.account?.id,
        },
        'request',
      );
    }
  };
}
