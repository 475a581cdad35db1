import type { WorkflowHandle } from '@temporalio/client';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type Timestamp = { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined;

/** Epoch ms of a protobuf timestamp, with its sub-millisecond part. */
const epochMs = (ts: Timestamp): number => {
  if (!ts) return Number.NaN;
  const seconds = ts.seconds == null ? 0 : typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber();
  return seconds * 1000 + (ts.nanos ?? 0) / 1e6;
};

/** When the Temporal server recorded each step of one update. Epoch ms. */
export interface UpdateTimeline {
  /** The update's name (`create`, `update`, `execute`, …). */
  name: string;
  /** The workflow task that accepted the update was handed to the worker. */
  taskStarted: number;
  accepted: number;
  completed: number;
}

/**
 * Reads, from a job run's history, each update's acceptance and completion, and the start of the workflow task that
 * accepted it, in the order the updates were accepted. A step whose write is a local activity (decision 97) is
 * accepted and completed by that one task; one whose write is an activity completes in a later task.
 */
export function updateTimelines(history: History): UpdateTimeline[] {
  const timelines: UpdateTimeline[] = [];
  const open = new Map<string, Omit<UpdateTimeline, 'completed'>>();
  let taskStarted = Number.NaN;
  for (const event of history.events ?? []) {
    const at = epochMs(event.eventTime as Timestamp);
    if (event.workflowTaskStartedEventAttributes) {
      taskStarted = at;
      continue;
    }
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (accepted) {
      const updateId = accepted.acceptedRequest?.meta?.updateId ?? accepted.protocolInstanceId ?? '';
      open.set(updateId, { name: accepted.acceptedRequest?.input?.name ?? '?', taskStarted, accepted: at });
      continue;
    }
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    if (completed) {
      const updateId = completed.meta?.updateId ?? '';
      const timeline = open.get(updateId);
      if (!timeline) continue;
      open.delete(updateId);
      if (!Number.isNaN(timeline.taskStarted)) timelines.push({ ...timeline, completed: at });
    }
  }
  return timelines;
}
