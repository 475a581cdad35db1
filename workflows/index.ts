/**
 * Every workflow the worker registers. A workflow's type is its export name here; each has a contract module
 * (`<name>.contract.ts`) with its name, input, id, search attributes and messages. Callers start and message runs
 * through the typed helpers in src/temporal/starters/.
 */
export { abTest } from './ab-test.ts';
export { campaignSend } from './campaign-send.ts';
export { cancelExperienceRuns } from './cancel-experience-runs.ts';
export { deliverBatch } from './deliver-batch.ts';
export { experienceRun } from './experience-run.ts';
export { ingestBatch } from './ingest-batch.ts';
export { ingestEvent } from './ingest-event.ts';
export { processFile } from './process-file.ts';
export { pushTest } from './push-test.ts';
export { recordingJob } from './recording-job.ts';
export { recordingRetention } from './recording-retention.ts';
export { selfTest } from './self-test.ts';
