import type { WorkflowHandle } from '@temporalio/client';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type Timestamp = { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined;

/** Epoch ms of a protobuf timestamp, with its sub-millisecond part. */
export const epochMs = (ts: Timestamp): number => {
  if (!ts) return Number.NaN;
  const seconds = ts.seconds == null ? 0 : typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber();
  return seconds * 1000 + (ts.nanos ?? 0) / 1e6;
};

/** When the Temporal server recorded each step of one update whose handler ran one activity. Epoch ms. */
export interface UpdateTimeline {
  /** The update's name (`create`, `update`, `execute`, …). */
  name: string;
  accepted: number;
  activityScheduled: number;
  activityStarted: number;
  activityCompleted: number;
  completed: number;
}

/**
 * Reads, from a job run's history, each update's acceptance, the first activity of one of `activityTypes`
 * scheduled after it (the handler's write), that activity's start and completion, and the update's completion, in
 * the order the updates were accepted. An update without all of these is left out.
 */
export function updateTimelines(history: History, activityTypes: readonly string[]): UpdateTimeline[] {
  const timelines: UpdateTimeline[] = [];
  const open = new Map<string, Partial<UpdateTimeline> & { name: string }>();
  const activityOwner = new Map<string, string>();
  const waitingForActivity: string[] = [];
  for (const event of history.events ?? []) {
    const at = epochMs(event.eventTime);
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (accepted) {
      const updateId = accepted.acceptedRequest?.meta?.updateId ?? accepted.protocolInstanceId ?? '';
      open.set(updateId, { name: accepted.acceptedRequest?.input?.name ?? '?', accepted: at });
      waitingForActivity.push(updateId);
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled && activityTypes.includes(scheduled.activityType?.name ?? '') && waitingForActivity.length > 0) {
      const updateId = waitingForActivity.shift()!;
      open.get(updateId)!.activityScheduled = at;
      activityOwner.set(String(event.eventId), updateId);
      continue;
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const owner = activityOwner.get(String(started.scheduledEventId));
      if (owner) open.get(owner)!.activityStarted = at;
      continue;
    }
    const done = event.activityTaskCompletedEventAttributes;
    if (done) {
      const owner = activityOwner.get(String(done.scheduledEventId));
      if (owner) open.get(owner)!.activityCompleted = at;
      continue;
    }
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    if (completed) {
      const updateId = completed.meta?.updateId ?? '';
      const timeline = open.get(updateId);
      if (!timeline) continue;
      timeline.completed = at;
      open.delete(updateId);
      if (
        timeline.accepted !== undefined &&
        timeline.activityScheduled !== undefined &&
        timeline.activityStarted !== undefined &&
        timeline.activityCompleted !== undefined
      ) {
        timelines.push(timeline as UpdateTimeline);
      }
    }
  }
  return timelines;
}
