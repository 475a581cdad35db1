import { defineQuery } from '@temporalio/workflow';
import { EntityId, EntityType } from '../src/sandbox-safe/search-attributes.ts';
import type { IngestState } from './ingest-event.contract.ts';

/**
 * The contract of the run that processes one batch of accepted inbound events, `ingest-batch:<batchId>`. The ingest
 * relay claims RECEIVED rows from the outbox into a batch (the batch id is written on the rows in the claiming
 * transaction, before the start), then starts this run: a restart of the same batch reuses the id, so a batch, and
 * with it an event, is never processed by two runs.
 */
export const ingestBatchWorkflowType = 'ingestBatch';

export interface IngestBatchInput {
  version: 1;
  batchId: string;
  /**
   * The events' ids, one array per person (account and clientUserId; an anonymous event is alone), each in order of
   * arrival. A person's events are processed one after another in that order; persons side by side.
   */
  groups: string[][];
  /** At most this many events per activity (a person's events always share one). */
  chunkSize: number;
}

export interface IngestBatchResult {
  events: number;
  byStatus: Partial<Record<IngestState['status'], number>>;
}

export type IngestBatchWorkflow = (input: IngestBatchInput) => Promise<IngestBatchResult>;

/** One event's state in this batch: RECEIVED until its chunk has run; null for an event not in the batch. */
export const ingestBatchEventState = defineQuery<IngestState | null, [string]>('eventState');

export const ingestBatchWorkflowId = (batchId: string) => `ingest-batch:${batchId}`;

/** Relays start at most this many events per batch: ids only (about 40 bytes each), far below the 2 MB payload limit. */
export const maxIngestBatchSize = 1000;

export const ingestBatchSearchAttributes = (input: IngestBatchInput) => [
  { key: EntityType, value: 'event-batch' },
  { key: EntityId, value: input.batchId },
];
