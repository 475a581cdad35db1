import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { DomainError, type ErrorCode, type ErrorDetail } from '../domain/errors.ts';

const businessCodes = new Set<ErrorCode>(['validation_failed', 'not_found', 'invalid_state', 'conflict', 'file_in_use', 'file_not_ready', 'file_rejected', 'too_many_takes']);

/**
 * Runs a workflow update and turns a business failure inside it (an ApplicationFailure whose type is one of our
 * error codes) back into the DomainError the HTTP layer answers with. `whenGone` handles an update that reached no
 * running workflow: it throws the error to answer with, or returns what the update would have.
 */
export async function withUpdateErrors<T>(update: () => Promise<T>, whenGone: () => Promise<T>): Promise<T> {
  try {
    return await update();
  } catch (error) {
    const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && businessCodes.has(cause.type as ErrorCode)) {
      throw new DomainError(cause.type as ErrorCode, cause.message, cause.details?.[0] as ErrorDetail[] | undefined);
    }
    if (error instanceof WorkflowNotFoundError) return whenGone();
    if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw new DomainError('service_unavailable', 'The run did not answer in time; retry');
    }
    throw error;
  }
}
