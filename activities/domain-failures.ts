import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '../src/domain/errors.ts';

/**
 * A business failure (a DomainError) will fail the same way on every retry, so it leaves the activity as a
 * non-retryable ApplicationFailure whose type is the error code; anything else stays retryable.
 */
export async function withDomainFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // The field details travel as the failure's details, so the API can answer with them.
    if (error instanceof DomainError) throw ApplicationFailure.nonRetryable(error.message, error.code, ...(error.details ? [error.details] : []));
    throw error;
  }
}
