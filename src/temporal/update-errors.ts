import { setTimeout as delay } from 'node:timers/promises';
import { isGrpcServiceError, ServiceError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
// A CommonJS module whose names Node's ESM loader cannot see: only its default export imports.
import protos from '@temporalio/proto';
import { DomainError, type ErrorCode, type ErrorDetail } from '../domain/errors.ts';

const businessCodes = new Set<ErrorCode>(['validation_failed', 'not_found', 'invalid_state', 'conflict', 'file_in_use', 'file_not_ready', 'file_rejected', 'too_many_takes']);

/** Pauses before each new try of an update the server aborted (ADR 0101); then the caller is told to retry. */
const abortedUpdateRetryDelaysMs = [50, 200, 500, 1000];

/**
 * Runs a workflow update and turns a business failure inside it (an ApplicationFailure whose type is one of our
 * error codes) back into the DomainError the HTTP layer answers with. `whenGone` handles an update that reached no
 * running workflow: it throws the error to answer with, or returns what the update would have.
 *
 * An update the server aborted because the workflow task carrying it failed (a signal arrived while that task
 * completed the run, say) left nothing in the run's history, so it is sent again (ADR 0101).
 */
export async function withUpdateErrors<T>(update: () => Promise<T>, whenGone: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await update();
    } catch (error) {
      if (isAbortedByTaskFailure(error)) {
        const pause = abortedUpdateRetryDelaysMs[attempt];
        if (pause === undefined) throw new DomainError('service_unavailable', 'The run could not take the change just now; retry', undefined, { 'Retry-After': '1' });
        await delay(pause);
        continue;
      }
      return answerUpdateFailure(error, whenGone);
    }
  }
}

function answerUpdateFailure<T>(error: unknown, whenGone: () => Promise<T>): Promise<T> {
  const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
  if (cause instanceof ApplicationFailure && businessCodes.has(cause.type as ErrorCode)) {
    throw new DomainError(cause.type as ErrorCode, cause.message, cause.details?.[0] as ErrorDetail[] | undefined);
  }
  if (error instanceof WorkflowNotFoundError) return whenGone();
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
    throw new DomainError('service_unavailable', 'The run did not answer in time; retry', undefined, { 'Retry-After': '1' });
  }
  throw error;
}

const workflowNotReadyType = 'type.googleapis.com/temporal.api.errordetails.v1.WorkflowNotReadyFailure';

/**
 * The server's answer when the workflow task that carried an update failed on its side (`UnhandledCommand`, say):
 * FAILED_PRECONDITION with a WorkflowNotReadyFailure detail. The update was never accepted into history.
 */
export function isAbortedByTaskFailure(error: unknown): boolean {
  const grpcError = error instanceof ServiceError ? error.cause : error;
  if (!isGrpcServiceError(grpcError)) return false;
  const statusDetails = grpcError.metadata?.get('grpc-status-details-bin')?.[0];
  if (!(statusDetails instanceof Uint8Array)) return false;
  return protos.google.rpc.Status.decode(statusDetails).details.some((detail) => detail.type_url === workflowNotReadyType);
}
