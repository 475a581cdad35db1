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

/** The stages of an event's way, in order; each figure is the time from the stage before. */
export const stageNames = [
  'post → accepted (row committed)',
  '→ ingest batch run started',
  '→ its first task started',
  '→ that task completed',
  '→ its chunk activity started',
  '→ flow run started',
  '→ flow run task started',
  '→ webhook action written',
  '→ delivery batch run started',
  '→ delivery run task started',
  '→ delivery run task completed',
  '→ delivery activity started',
  '→ received',
] as const;

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
  const stages: number[][] = stageNames.map(() => []);
  for (const event of traced) {
    const { rows } = await sql.query<{ accepted: Date; ingest_run: string; flow_run: string; action_at: Date; delivery_run: string }>(
      `select i.created_at as accepted, i.workflow_id as ingest_run, r.workflow_id as flow_run, o.created_at as action_at, d.workflow_id as delivery_run
         from inbound_events i
         join experience_runs r on r.trigger_event_id = i.id
         join outbound_events o on o.id = $2
         join deliveries d on d.event_id = o.id
        where i.message_id = $1`,
      [event.messageId, event.actionEventId],
    );
    const row = rows[0];
    if (!row) continue;
    const batchStages = [started, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED];
    const ingest = await firstTimes(client, row.ingest_run, batchStages);
    const flow = await firstTimes(client, row.flow_run, [started, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED]);
    const delivery = await firstTimes(client, row.delivery_run, batchStages);
    const times = [event.postedAt, row.accepted.getTime(), ...ingest, ...flow, row.action_at.getTime(), ...delivery, event.receivedAt];
    times.slice(1).forEach((time, index) => stages[index]!.push(time - times[index]!));
  }
  return stageNames.map((name, index) => [name, percentile(ascending(stages[index]!), 50)]);
}
