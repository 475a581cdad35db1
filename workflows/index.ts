/**
 * Every workflow the worker registers. A workflow's type is its export name here; each has a contract module
 * (`<name>.contract.ts`) that callers use to start and message it.
 */
export { abTest } from './ab-test.ts';
export { cancelExperienceRuns } from './cancel-experience-runs.ts';
export { deliverBatch } from './deliver-batch.ts';
/** Retired: kept for runs in flight and recorded histories (deliveries now go through `deliverBatch`). */
export { deliverWebhook } from './deliver-webhook.ts';
export { experienceRun } from './experience-run.ts';
/** Retired: kept for runs in flight and recorded histories (publishEvent now writes the delivery outbox). */
export { fanOutEvent } from './fan-out-event.ts';
export { ingestBatch } from './ingest-batch.ts';
export { ingestEvent } from './ingest-event.ts';
export { recordingJob } from './recording-job.ts';
export { selfTest } from './self-test.ts';
