import { Mutex } from 'async-mutex';
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { EventType } from '../src/domain/events/event-types.ts';
import { isFinal, transition, type JobAction } from '../src/sandbox-safe/job-transitions.ts';
import type { JobView } from '../src/domain/jobs/job-view.ts';
import { JobStatus } from '../src/sandbox-safe/search-attributes.ts';
import {
  acceptJob,
  cancelJob,
  createJob,
  executeJob,
  jobState,
  selectRecording,
  submitRecording,
  updateJob,
  type CarriedJobState,
  type PendingJobEvent,
  type RecordingJobInput,
} from './recording-job.contract.ts';

const { createJobRecord, applyJobAction } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '30 seconds' },
});
const { publishJobEvent } = proxyActivities<Activities>({
  // Publishing is two quick writes; a short timeout lets a worker crash mid-send be retried promptly.
  startToCloseTimeout: '10 seconds',
  retry: { maximumInterval: '5 minutes' },
});

/** Activity failures reach the caller of an update as the same business failure (type = error code). */
function asUpdateFailure(error: unknown): unknown {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
    const { type, message, details } = error.cause;
    return ApplicationFailure.create({ type: type ?? undefined, message, details: details ?? undefined, nonRetryable: true });
  }
  return error;
}

/**
 * One recording job, `job:<jobId>`, from create to accept or cancel. Every change arrives as an update: the handler
 * checks the transition, writes it to Postgres through an activity and returns the job as stored, so the caller gets
 * a consistent answer at once. Updates run one at a time (a lock), so of two conflicting ones exactly one wins.
 * Outbound events and the due-date timers are handled by the main loop, after the caller has its answer.
 */
export async function recordingJob(input: RecordingJobInput): Promise<JobView | null> {
  let job: JobView | null = input.carried?.job ?? null;
  const outbox: PendingJobEvent[] = input.carried?.outbox ?? [];
  let artistOverdueSentFor = input.carried?.artistOverdueSentFor ?? null;
  let overdueSentFor = input.carried?.overdueSentFor ?? null;
  let createFailed = false;
  let datesChanged = false;
  const lock = new Mutex();

  const emit = (type: EventType, result: Record<string, unknown>) =>
    outbox.push({ eventId: `evt_${uuid4().replaceAll('-', '')}`, type, result: { jobId: input.jobId, ...result } });

  const assignedPayload = (view: JobView) => ({
    notificationId: view.notificationId,
    title: view.title,
    artist: view.artist,
    script: view.script,
    dueDate: view.dueDate,
    artistDueDate: view.artistDueDate,
  });

  const showState = () => {
    if (!job) return;
    upsertSearchAttributes([{ key: JobStatus, value: job.status }]);
    setCurrentDetails(
      [
        `**${job.status}** · ${job.title}`,
        `artist: ${job.artist ?? '—'} · recordings: ${job.recordings.length} · selected: ${job.selectedFileId ?? '—'}`,
        `artist due: ${job.artistDueDate ? new Date(job.artistDueDate).toISOString() : '—'} · due: ${job.dueDate ? new Date(job.dueDate).toISOString() : '—'}`,
      ].join('\n'),
    );
  };

  const requireAllowed = (action: JobAction) => {
    if (!job) throw ApplicationFailure.create({ type: 'not_found', message: 'Job not found', nonRetryable: true });
    const step = transition(action, job.status);
    if (!step.ok) throw ApplicationFailure.create({ type: 'invalid_state', message: step.message, nonRetryable: true });
  };

  /** Runs one step under the lock: re-check, persist, then remember the stored job. */
  const step = <R>(action: JobAction, persist: (transitionId: string) => Promise<JobView>, after: (before: JobView) => R) =>
    lock.runExclusive(async () => {
      requireAllowed(action);
      const before = job!;
      try {
        job = await persist(uuid4());
      } catch (error) {
        throw asUpdateFailure(error);
      }
      showState();
      return after(before);
    });

  setHandler(jobState, () => job);

  setHandler(createJob, (args) =>
    lock.runExclusive(async () => {
      if (job) return job;
      try {
        job = await createJobRecord({ ...args, jobId: input.jobId, accountId: input.accountId, appId: input.appId, transitionId: uuid4() });
      } catch (error) {
        createFailed = true;
        throw asUpdateFailure(error);
      }
      showState();
      return job;
    }),
  );

  setHandler(
    updateJob,
    (changes) =>
      step('update', (transitionId) => applyJobAction({ jobId: input.jobId, transitionId, action: 'update', changes }), (before) => {
        const now = job!;
        if (now.dueDate !== before.dueDate || now.artistDueDate !== before.artistDueDate) datesChanged = true;
        if (now.status === 'ASSIGNED' && now.artist !== before.artist) emit('job.assigned', { ...assignedPayload(now), previousArtist: before.artist });
        return now;
      }),
    { validator: (_changes) => requireAllowed('update') },
  );

  setHandler(
    executeJob,
    () =>
      step('execute', (transitionId) => applyJobAction({ jobId: input.jobId, transitionId, action: 'execute' }), () => {
        emit('job.assigned', assignedPayload(job!));
        return job!;
      }),
    { validator: () => requireAllowed('execute') },
  );

  setHandler(
    submitRecording,
    (recording) => {
      const fileId = uuid4();
      return step('submitRecording', (transitionId) => applyJobAction({ jobId: input.jobId, transitionId, action: 'submitRecording', fileId, recording }), () => {
        emit('job.recording_submitted', { fileId, url: recording.url, fileName: recording.fileName ?? null });
        return { job: job!, fileId };
      });
    },
    { validator: (_recording) => requireAllowed('submitRecording') },
  );

  setHandler(
    selectRecording,
    ({ fileId }) => step('select', (transitionId) => applyJobAction({ jobId: input.jobId, transitionId, action: 'select', fileId }), () => job!),
    { validator: (_selection) => requireAllowed('select') },
  );

  setHandler(
    acceptJob,
    () =>
      step('accept', (transitionId) => applyJobAction({ jobId: input.jobId, transitionId, action: 'accept' }), () => {
        const file = job!.recordings.find((recording) => recording.fileId === job!.selectedFileId);
        emit('job.accepted', { notificationId: job!.notificationId, fileId: job!.selectedFileId, url: file?.url ?? null });
        return job!;
      }),
    { validator: () => requireAllowed('accept') },
  );

  setHandler(
    cancelJob,
    () =>
      step('cancel', (transitionId) => applyJobAction({ jobId: input.jobId, transitionId, action: 'cancel' }), (before) => {
        emit('job.cancelled', { notificationId: job!.notificationId, previousStatus: before.status });
        return job!;
      }),
    { validator: () => requireAllowed('cancel') },
  );

  // A run started by update-with-start whose create failed has nothing to drive.
  await condition(() => job !== null || createFailed);
  if (!job) return null;
  showState();

  for (;;) {
    queueOverdueEvents();
    // History stays bounded: past the limit the run hands its state, unsent events included, to a fresh run. This is
    // checked before publishing, so a steady stream of updates cannot keep it from happening.
    if (!isFinal(job.status) && historyIsLong()) {
      await condition(allHandlersFinished);
      const carried: CarriedJobState = { version: 1, job, outbox, artistOverdueSentFor, overdueSentFor };
      return continueAsNew<typeof recordingJob>({ ...input, version: 1, carried });
    }
    const next = outbox[0];
    if (next) {
      await publishJobEvent({ ...next, accountId: input.accountId });
      outbox.shift();
      continue;
    }
    if (isFinal(job.status) && lock.isLocked() === false) {
      await condition(allHandlersFinished);
      if (outbox.length === 0) return job;
      continue;
    }
    const deadline = nextDeadline();
    datesChanged = false;
    const changed = () => outbox.length > 0 || datesChanged || isFinal(job!.status) || historyIsLong();
    if (deadline === undefined) await condition(changed);
    else await condition(changed, Math.max(1, deadline - Date.now()));
  }

  function historyIsLong(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength > (input.historyLimit ?? 2000);
  }

  /** Due dates still to watch: the artist's while nothing is submitted, the job's until it is accepted. */
  function pendingDeadlines(): Array<{ kind: 'artist' | 'job'; at: number }> {
    const deadlines: Array<{ kind: 'artist' | 'job'; at: number }> = [];
    if (!job || job.status === 'CANCELLED') return deadlines;
    if (job.artistDueDate !== null && job.recordings.length === 0 && artistOverdueSentFor !== job.artistDueDate) {
      deadlines.push({ kind: 'artist', at: job.artistDueDate });
    }
    if (job.dueDate !== null && job.status !== 'ACCEPTED' && overdueSentFor !== job.dueDate) {
      deadlines.push({ kind: 'job', at: job.dueDate });
    }
    return deadlines;
  }

  function nextDeadline(): number | undefined {
    const times = pendingDeadlines().map((deadline) => deadline.at);
    return times.length ? Math.min(...times) : undefined;
  }

  function queueOverdueEvents(): void {
    const now = Date.now();
    for (const deadline of pendingDeadlines()) {
      if (deadline.at > now) continue;
      if (deadline.kind === 'artist') {
        artistOverdueSentFor = deadline.at;
        emit('job.artist_overdue', { artist: job!.artist, artistDueDate: deadline.at, status: job!.status });
      } else {
        overdueSentFor = deadline.at;
        emit('job.overdue', { status: job!.status, dueDate: deadline.at });
      }
    }
  }
}
