import type { Middleware } from 'koa';
import { DomainError, type ErrorCode } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import { errorBody } from './error-body.ts';

interface HttpLikeError {
  status?: number;
  expose?: boolean;
}

/** Maps errors raised by the router itself (405/501 from allowedMethods, 413 from body reading) to our codes. */
function codeForHttpStatus(status: number): ErrorCode | undefined {
  if (status === 405 || status === 501) return 'method_not_allowed';
  if (status === 413) return 'payload_too_large';
  if (status === 404) return 'not_found';
  return undefined;
}

/** Turns every failure into the one error body. Unexpected faults are logged with the requestId, never shown. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    const requestId: string = ctx.state.requestId;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = errorBody('not_found', `No route for ${ctx.method} ${ctx.path}`, requestId);
      }
    } catch (error) {
      if (error instanceof DomainError) {
        ctx.status = error.status;
        ctx.body = errorBody(error.code, error.message, requestId, error.details);
        return;
      }
      const status = (error as HttpLikeError).status;
      const mapped = status ? codeForHttpStatus(status) : undefined;
      if (mapped) {
        ctx.status = mapped === 'method_not_allowed' ? 405 : status!;
        ctx.body = errorBody(mapped, (error as Error).message, requestId);
        return;
      }
      logger.error({ err: error, requestId }, 'unhandled error');
      ctx.status = 500;
      ctx.body = errorBody('internal', 'An unexpected error occurred', requestId);
    }
  };
}
