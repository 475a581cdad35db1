import type { EntityManager } from '@mikro-orm/postgresql';
import type { IngestBacklog } from '../../metrics/api-metrics.ts';

/**
 * The ingest backlog: accepted events whose processing has not started, and the age of the oldest. On this schema
 * that is an inbound event still RECEIVED (its run has not yet recorded a decision). HELD events are left out: they
 * wait for a person to be linked (until their hold expires), not for a worker, and would make the oldest age the
 * age of the oldest hold. (An ingest outbox replaces this query with one over its own rows.)
 */
export async function measureIngestBacklog(em: EntityManager): Promise<IngestBacklog> {
  const [row] = await em.execute<Array<{ rows: string | number; oldest: string | number | null }>>(
    `select count(*) as rows, extract(epoch from now() - min(created_at)) as oldest from inbound_events where status = ?`,
    ['RECEIVED'],
  );
  return { rows: Number(row?.rows ?? 0), oldestAgeSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
}
