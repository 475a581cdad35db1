import type { Middleware } from 'koa';
import { DomainError, type ErrorCode } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { errorBody } from './error-body.ts';
import { dependencyRetryAfterSeconds, isDependencyUnavailable } from './dependency-errors.ts';

interface HttpLikeError {
  status?: number;
  expose?: boolean;
}

/** Maps http-errors thrown by Koa itself (e.g. a malformed URL) to our codes. */
function codeForHttpStatus(status: number): ErrorCode | undefined {
  if (status === 400) return 'validation_failed';
  if (status === 404) return 'not_found';
  if (status === 413) return 'payload_too_large';
  return undefined;
}

/** Turns every failure into the one error body. Unexpected faults are logged with the requestId, never shown. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    const requestId: string = ctx.state.requestId;
    try {
      await next();
      if (ctx.body == null && ctx.status === 404) {
        ctx.status = 404;
        ctx.body = errorBody('not_found', `No route for ${ctx.method} ${ctx.path}`, requestId);
      } else if (ctx.body == null && (ctx.status === 405 || ctx.status === 501)) {
        // allowedMethods has set the Allow header; 501 (an unknown method) is answered as 405 too.
        ctx.status = 405;
        ctx.body = errorBody('method_not_allowed', `${ctx.method} is not allowed here; allowed: ${ctx.response.get('allow')}`, requestId);
      }
    } catch (error) {
      if (error instanceof DomainError) {
        ctx.status = error.status;
        if (error.headers) ctx.set(error.headers);
        ctx.body = errorBody(error.code, error.message, requestId, error.details);
        return;
      }
      const status = (error as HttpLikeError).status;
      const mapped = status ? codeForHttpStatus(status) : undefined;
      if (mapped) {
        ctx.status = status!;
        // Only an error that says its message is for the client (http-errors' `expose`, as raw-body's are) shows it.
        const message = (error as HttpLikeError).expose === true ? (error as Error).message : `The request failed (${status})`;
        ctx.body = errorBody(mapped, message, requestId);
        return;
      }
      if (isDependencyUnavailable(error)) {
        logger.warn({ err: error, requestId }, 'dependency unavailable');
        ctx.status = 503;
        ctx.set('Retry-After', String(dependencyRetryAfterSeconds));
        ctx.body = errorBody('service_unavailable', 'A backing service is unavailable; retry later', requestId);
        return;
      }
      logger.error({ err: error, requestId }, 'unhandled error');
      ctx.status = 500;
      ctx.body = errorBody('internal', 'An unexpected error occurred', requestId);
    }
  };
}
