import { defineQuery, defineSignal } from '@temporalio/workflow';

/** What an ingest run answers. The API and the visitor linker import these, so this file holds nothing else. */
export const visitorLinked = defineSignal<[{ visitorId: string }]>('visitorLinked');

export interface IngestState {
  status: 'RECEIVED' | 'HELD' | 'PROCESSED' | 'IGNORED' | 'EXPIRED' | 'FAILED';
  visitorId: string | null;
  reason?: string;
}

export const ingestState = defineQuery<IngestState>('state');
