import type { Middleware } from 'koa';
import type { Logger } from '../logger.ts';

/** One structured line per request. The query string is left out: it can carry ids a caller considers private. */
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
          path: ctx.path,
          status: ctx.status,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          accountId: ctx.state.account?.id,
        },
        'request',
      );
    }
  };
}
