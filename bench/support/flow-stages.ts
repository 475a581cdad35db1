import type { Client } from '@temporalio/client';
import protos from '@temporalio/proto';
import type pg from 'pg';
import { ascending, percentile } from './stats.ts';

const { EventType } = protos.temporal.api.enums.v1;

/** One event that went the whole way: posted, routed into a new run, whose webhook action arrived. */
export interface TracedEvent {
  messageId: string;
  /** Epoch ms the post was sent and the action received (the bench's clock). */
  postedAt: number;
  receivedAt: number;
  /** The action's webhook-id: its outbound event's id. */
  actionEventId: string;
}

/**
 * The stages of an event's way, in order; each figure is the time from the stage before. The two flow run stages are
 * only there for a run that waited before its webhook: routing takes a new run's first steps itself (ADR 0066). An
 * action sent at once by the chunk that routed it (ADR 0027) has no delivery run: its attempt follows the write.
 */
export const stageNames = [
  'post → accepted (row committed)',
  '→ ingest batch run started',
  '→ its first task started',
  '→ that task completed',
  '→ its chunk activity started',
  '→ flow run started',
  '→ flow run task started',
  '→ webhook action written',
  '→ attempt started, at once',
  '→ delivery batch run started',
  '→ delivery run task started',
  '→ delivery run task completed',
  '→ delivery activity started',
  '→ received',
] as const;
type StageName = (typeof stageNames)[number];

const epochMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

/** Epoch ms of the first history event of each type named, in the run's history. */
async function firstTimes(client: Client, workflowId: string, types: protos.temporal.api.enums.v1.EventType[]): Promise<number[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return types.map((type) => epochMs(history.events?.find((event) => event.eventType === type)?.eventTime));
}

/**
 * Where an event's time went, from the database's rows and the runs' histories (the dev server, the database and the
 * bench share one clock): the median of each stage over the traced events, in ms.
 */
export async function medianStages(sql: pg.Client, client: Client, traced: TracedEvent[]): Promise<Array<[string, number]>> {
  const started = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED;
  const stages = new Map<StageName, number[]>(stageNames.map((name) => [name, []]));
  for (const event of traced) {
    const { rows } = await sql.query<{ accepted: Date; ingest_run: string; flow_run: string | null; action_at: Date; delivery_run: string; attempt_at: Date }>(
      `select i.created_at as accepted, i.workflow_id as ingest_run, r.workflow_id as flow_run, o.created_at as action_at, d.workflow_id as delivery_run,
              a.started_at as attempt_at
         from inbound_events i
         join experience_runs r on r.trigger_event_id = i.id
         join outbound_events o on o.id = $2
         join deliveries d on d.event_id = o.id
         join delivery_attempts a on a.delivery_id = d.id and a.attempt_number = 1
        where i.message_id = $1`,
      [event.messageId, event.actionEventId],
    );
    const row = rows[0];
    if (!row) continue;
    const batchStages = [started, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED];
    const [ingestStarted, ingestTask, ingestDone, chunk] = await firstTimes(client, row.ingest_run, batchStages);
    const flow = row.flow_run ? await firstTimes(client, row.flow_run, [started, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED]) : [];
    const atOnce = row.delivery_run === row.ingest_run;
    const delivery = atOnce ? [] : await firstTimes(client, row.delivery_run, batchStages);
    const times: Array<[StageName, number]> = [
      ['post → accepted (row committed)', row.accepted.getTime()],
      ['→ ingest batch run started', ingestStarted!],
      ['→ its first task started', ingestTask!],
      ['→ that task completed', ingestDone!],
      ['→ its chunk activity started', chunk!],
      ...(flow.length ? ([['→ flow run started', flow[0]!], ['→ flow run task started', flow[1]!]] as Array<[StageName, number]>) : []),
      ['→ webhook action written', row.action_at.getTime()],
      ...((atOnce
        ? [['→ attempt started, at once', row.attempt_at.getTime()]]
        : [
            ['→ delivery batch run started', delivery[0]!],
            ['→ delivery run task started', delivery[1]!],
            ['→ delivery run task completed', delivery[2]!],
            ['→ delivery activity started', delivery[3]!],
          ]) as Array<[StageName, number]>),
      ['→ received', event.receivedAt],
    ];
    let before = event.postedAt;
    for (const [name, time] of times) {
      stages.get(name)!.push(time - before);
      before = time;
    }
  }
  return stageNames.flatMap((name) => (stages.get(name)!.length ? [[name, percentile(ascending(stages.get(name)!), 50)] as [string, number]] : []));
}
