import type { RequestListener } from 'node:http';
import Koa from 'koa';
import { accessLog } from './access-log.ts';
import { consolePages } from './console-pages.ts';
import { errorHandler } from './error-handler.ts';
import { requestId } from './request-id.ts';
import { requestMetrics } from './request-metrics.ts';
import type { RouteSpec } from './route.ts';
import { buildRouter } from './router.ts';
import type { ApiServices } from './services.ts';

export function buildApp(routes: RouteSpec[], services: ApiServices): Koa {
  const app = new Koa({ proxy: false });
  // Errors are answered by errorHandler; Koa's own error event would print stacks to stderr.
  app.silent = true;
  const router = buildRouter(routes, services);
  app.use(requestId);
  app.use(accessLog(services.logger));
  app.use(requestMetrics(services.metrics));
  app.use(errorHandler(services.logger));
  app.use(router.routes());
  // After the API's routes: the console's pages are every other GET under /console (and an artist's link).
  app.use(consolePages(services.consoleDir, router, services.files.storage));
  app.use(router.allowedMethods());
  return app;
}

/**
 * The app as a Node request listener. Koa's handler answers its own errors and never rejects, so Node, which
 * ignores what a listener returns, loses nothing.
 */
export function requestListener(app: Koa): RequestListener {
  const handle = app.callback();
  return (request, response) => void handle(request, response);
}
