import type { EntityManager } from '@mikro-orm/postgresql';
import type { IngestBacklog } from '../../metrics/api-metrics.ts';

/**
 * The ingest outbox backlog: accepted events whose processing run has not been started by a relay yet, and the age of
 * the oldest. It reads the partial index of unrelayed rows (`inbound_events_unrelayed_index`), so a scrape stays cheap
 * however many events are stored. A growing backlog means no relay is running or Temporal is unreachable.
 */
export async function measureIngestBacklog(em: EntityManager): Promise<IngestBacklog> {
  const [row] = await em.execute<Array<{ rows: string | number; oldest: string | number | null }>>(
    'select count(*) as rows, extract(epoch from now() - min(created_at)) as oldest from inbound_events where workflow_started_at is null',
  );
  return { rows: Number(row?.rows ?? 0), oldestAgeSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
}
