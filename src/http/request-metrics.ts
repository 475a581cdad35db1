import type { Middleware } from 'koa';
import type { ApiMetrics } from '../metrics/api-metrics.ts';

/** The label of a request no route matched: its raw path would let any client add label values at will. */
export const unmatchedRoute = 'unmatched';

/**
 * Times every request into the request-duration histogram, labelled with the route pattern the router matched
 * (`/accounts/:accountId/apps`), never the raw path, so ids, inbound keys and query strings never become labels.
 * Placed outside the error handler, it sees the status the client got.
 */
export function requestMetrics(metrics: ApiMetrics): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      metrics.observeRequest(
        { method: ctx.method, route: typeof matched === 'string' ? matched : unmatchedRoute, status: ctx.status },
        (performance.now() - started) / 1000,
      );
    }
  };
}
