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
    if (error instanceof DomainError) throw ApplicationFailure.nonRetryable(error.message, error.code);
    throw error;
  }
}
