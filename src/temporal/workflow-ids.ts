/**
 * Workflow ids, one pattern per kind of run, so an operator can find a run in the Temporal UI from an id they hold.
 * Workflow code imports these too, so this file stays free of Node APIs.
 */
export const selfTestWorkflowId = (id: string) => `self-test:${id}`;
export const eventFanOutWorkflowId = (eventId: string) => `event:${eventId}`;
export const deliveryWorkflowId = (eventId: string, endpointId: string) => `delivery:${eventId}:${endpointId}`;
export const redeliveryWorkflowId = (eventId: string, endpointId: string, deliveryId: string) =>
  `delivery:${eventId}:${endpointId}:redelivery:${deliveryId}`;
export const jobWorkflowId = (jobId: string) => `job:${jobId}`;
export const ingestWorkflowId = (connectionId: string, messageId: string) => `ingest:${connectionId}:${messageId}`;
