import type { ActivityFailure } from '@temporalio/workflow';

/** What went wrong in an activity that failed for good, in the activity's own words. */
export const failureReason = (failure: ActivityFailure): string => failure.cause?.message ?? failure.message;
