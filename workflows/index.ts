export { deliverWebhook, fanOutEvent } from './deliveries.ts';
export { ingestEvent } from './ingest-event.ts';
export { recordingJob } from './recording-job.ts';
export { selfTest } from './self-test.ts';
