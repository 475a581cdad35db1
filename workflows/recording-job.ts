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
import type { JobActionInput } from '../src/domain/jobs/apply-job-action.ts';
import type { JobChanges, JobView, RecordingInput } from '../src/domain/jobs/job-view.ts';
import { isFinal, transition, type JobAction } from '../src/sandbox-safe/job-transitions.ts';
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
  type CreateJobArgs,
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

const defaultHistoryLimit = 2000;

/** A job run's state, shared by its update handlers and its main loop. */
interface JobRun {
  input: RecordingJobInput;
  job: JobView | null;
  /** Events decided on and not yet published, oldest first. */
  outbox: PendingJobEvent[];
  /** The due dates whose overdue event is queued: a date that moves is watched again. */
  artistOverdueSentFor: number | null;
  overdueSentFor: number | null;
  createFailed: boolean;
  /** A due date moved since the main loop last set its timer. */
  datesChanged: boolean;
  /** Updates run one at a time: of two conflicting ones exactly one wins. */
  lock: Mutex;
}

/** A run whose job exists: the main loop's. */
type CreatedJobRun = JobRun & { job: JobView };

/**
 * One recording job, `job:<jobId>`, from create to accept or cancel. Every change arrives as an update: the handler
 * checks the transition, writes it to Postgres through an activity and returns the job as stored, so the caller gets
 * a consistent answer at once. Updates run one at a time (a lock), so of two conflicting ones exactly one wins.
 * Outbound events and the due-date timers are handled by the main loop, after the caller has its answer.
 */
export async function recordingJob(input: RecordingJobInput): Promise<JobView | null> {
  const run: JobRun = {
    input,
    job: input.carried?.job ?? null,
    outbox: input.carried?.outbox ?? [],
    artistOverdueSentFor: input.carried?.artistOverdueSentFor ?? null,
    overdueSentFor: input.carried?.overdueSentFor ?? null,
    createFailed: false,
    datesChanged: false,
    lock: new Mutex(),
  };
  handleUpdates(run);
  // A run started by update-with-start whose create failed has nothing to drive.
  await condition(() => run.job !== null || run.createFailed);
  if (!isCreated(run)) return null;
  showState(run.job);
  return publishAndWatch(run);
}

const isCreated = (run: JobRun): run is CreatedJobRun => run.job !== null;

function handleUpdates(run: JobRun): void {
  setHandler(jobState, () => run.job);
  setHandler(createJob, (args) => onCreate(run, args));
  setHandler(updateJob, (changes) => onUpdate(run, changes), { validator: (_changes) => requireAllowed(run, 'update') });
  setHandler(executeJob, () => onExecute(run), { validator: () => requireAllowed(run, 'execute') });
  setHandler(submitRecording, (recording) => onSubmitRecording(run, recording), { validator: (_recording) => requireAllowed(run, 'submitRecording') });
  setHandler(selectRecording, ({ fileId }) => step(run, { action: 'select', fileId }, (job) => job), { validator: (_selection) => requireAllowed(run, 'select') });
  setHandler(acceptJob, () => onAccept(run), { validator: () => requireAllowed(run, 'accept') });
  setHandler(cancelJob, () => onCancel(run), { validator: () => requireAllowed(run, 'cancel') });
}

/** Creates the job once; a create that comes again answers the job as it is. */
function onCreate(run: JobRun, args: CreateJobArgs): Promise<JobView> {
  return run.lock.runExclusive(async () => {
    if (run.job) return run.job;
    const { jobId, accountId, appId } = run.input;
    try {
      run.job = await createJobRecord({ ...args, jobId, accountId, appId, transitionId: uuid4() });
    } catch (error) {
      run.createFailed = true;
      throw asUpdateFailure(error);
    }
    showState(run.job);
    return run.job;
  });
}

const onUpdate = (run: JobRun, changes: JobChanges) =>
  step(run, { action: 'update', changes }, (job, before) => {
    if (job.dueDate !== before.dueDate || job.artistDueDate !== before.artistDueDate) run.datesChanged = true;
    if (job.status === 'ASSIGNED' && job.artist !== before.artist) emit(run, 'job.assigned', { ...assignedPayload(job), previousArtist: before.artist });
    return job;
  });

const onExecute = (run: JobRun) =>
  step(run, { action: 'execute' }, (job) => {
    emit(run, 'job.assigned', assignedPayload(job));
    return job;
  });

function onSubmitRecording(run: JobRun, recording: RecordingInput) {
  const fileId = uuid4();
  return step(run, { action: 'submitRecording', fileId, recording }, (job) => {
    emit(run, 'job.recording_submitted', { fileId, url: recording.url, fileName: recording.fileName ?? null });
    return { job, fileId };
  });
}

const onAccept = (run: JobRun) =>
  step(run, { action: 'accept' }, (job) => {
    const file = job.recordings.find((recording) => recording.fileId === job.selectedFileId);
    emit(run, 'job.accepted', { notificationId: job.notificationId, fileId: job.selectedFileId, url: file?.url ?? null });
    return job;
  });

const onCancel = (run: JobRun) =>
  step(run, { action: 'cancel' }, (job, before) => {
    emit(run, 'job.cancelled', { notificationId: job.notificationId, previousStatus: before.status });
    return job;
  });

/** The job, when `action` may apply to it now; otherwise the business failure the caller gets. */
function requireAllowed(run: JobRun, action: JobAction): JobView {
  if (!run.job) throw ApplicationFailure.create({ type: 'not_found', message: 'Job not found', nonRetryable: true });
  const allowed = transition(action, run.job.status);
  if (!allowed.ok) throw ApplicationFailure.create({ type: 'invalid_state', message: allowed.message, nonRetryable: true });
  return run.job;
}

/** Runs one step under the lock: checks it again, writes it, shows the job as stored; `after` gets it and the job before. */
function step<R>(run: JobRun, action: JobActionInput, after: (job: JobView, before: JobView) => R): Promise<R> {
  return run.lock.runExclusive(async () => {
    const before = requireAllowed(run, action.action);
    let job: JobView;
    try {
      job = await applyJobAction({ ...action, jobId: run.input.jobId, transitionId: uuid4() });
    } catch (error) {
      throw asUpdateFailure(error);
    }
    run.job = job;
    showState(job);
    return after(job, before);
  });
}

/** Activity failures reach the caller of an update as the same business failure (type = error code). */
function asUpdateFailure(error: unknown): unknown {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) {
    const { type, message, details } = error.cause;
    return ApplicationFailure.create({ type: type ?? undefined, message, details: details ?? undefined, nonRetryable: true });
  }
  return error;
}

function emit(run: JobRun, type: EventType, result: Record<string, unknown>): void {
  run.outbox.push({ eventId: `evt_${uuid4().replaceAll('-', '')}`, type, result: { jobId: run.input.jobId, ...result } });
}

const assignedPayload = (job: JobView) => ({
  notificationId: job.notificationId,
  title: job.title,
  artist: job.artist,
  script: job.script,
  dueDate: job.dueDate,
  artistDueDate: job.artistDueDate,
});

function showState(job: JobView): void {
  upsertSearchAttributes([{ key: JobStatus, value: job.status }]);
  setCurrentDetails(
    [
      `**${job.status}** · ${job.title}`,
      `artist: ${job.artist ?? '—'} · recordings: ${job.recordings.length} · selected: ${job.selectedFileId ?? '—'}`,
      `artist due: ${job.artistDueDate ? new Date(job.artistDueDate).toISOString() : '—'} · due: ${job.dueDate ? new Date(job.dueDate).toISOString() : '—'}`,
    ].join('\n'),
  );
}

/**
 * The main loop: queues the overdue events whose date has come, publishes the outbox one event at a time, and waits
 * for the next due date or for an update to change something; ends once the job is final and every event is out.
 */
async function publishAndWatch(run: CreatedJobRun): Promise<JobView> {
  for (;;) {
    queueOverdueEvents(run);
    // History stays bounded: past the limit the run hands its state, unsent events included, to a fresh run. This is
    // checked before publishing, so a steady stream of updates cannot keep it from happening.
    if (!isFinal(run.job.status) && historyIsLong(run)) return handOver(run);
    const next = run.outbox[0];
    if (next) {
      await publishJobEvent({ ...next, accountId: run.input.accountId });
      run.outbox.shift();
      continue;
    }
    if (isFinal(run.job.status) && !run.lock.isLocked()) {
      await condition(allHandlersFinished);
      if (run.outbox.length === 0) return run.job;
      continue;
    }
    await untilChanged(run);
  }
}

/** Waits for the next due date, or for an event to publish, a date that moved, the job's end or a long history. */
async function untilChanged(run: CreatedJobRun): Promise<void> {
  const deadline = nextDeadline(run);
  run.datesChanged = false;
  const changed = () => run.outbox.length > 0 || run.datesChanged || isFinal(run.job.status) || historyIsLong(run);
  if (deadline === undefined) await condition(changed);
  else await condition(changed, Math.max(1, deadline - Date.now()));
}

function historyIsLong(run: JobRun): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > (run.input.historyLimit ?? defaultHistoryLimit);
}

async function handOver(run: CreatedJobRun): Promise<never> {
  await condition(allHandlersFinished);
  const { job, outbox, artistOverdueSentFor, overdueSentFor } = run;
  const carried: CarriedJobState = { version: 1, job, outbox, artistOverdueSentFor, overdueSentFor };
  return continueAsNew<typeof recordingJob>({ ...run.input, version: 1, carried });
}

/** Due dates still to watch: the artist's while nothing is submitted, the job's until it is accepted. */
function pendingDeadlines({ job, artistOverdueSentFor, overdueSentFor }: CreatedJobRun): Array<{ kind: 'artist' | 'job'; at: number }> {
  const deadlines: Array<{ kind: 'artist' | 'job'; at: number }> = [];
  if (job.status === 'CANCELLED') return deadlines;
  if (job.artistDueDate !== null && job.recordings.length === 0 && artistOverdueSentFor !== job.artistDueDate) {
    deadlines.push({ kind: 'artist', at: job.artistDueDate });
  }
  if (job.dueDate !== null && job.status !== 'ACCEPTED' && overdueSentFor !== job.dueDate) {
    deadlines.push({ kind: 'job', at: job.dueDate });
  }
  return deadlines;
}

function nextDeadline(run: CreatedJobRun): number | undefined {
  const times = pendingDeadlines(run).map((deadline) => deadline.at);
  return times.length ? Math.min(...times) : undefined;
}

function queueOverdueEvents(run: CreatedJobRun): void {
  const now = Date.now();
  for (const deadline of pendingDeadlines(run)) {
    if (deadline.at > now) continue;
    if (deadline.kind === 'artist') {
      run.artistOverdueSentFor = deadline.at;
      emit(run, 'job.artist_overdue', { artist: run.job.artist, artistDueDate: deadline.at, status: run.job.status });
    } else {
      run.overdueSentFor = deadline.at;
      emit(run, 'job.overdue', { status: run.job.status, dueDate: deadline.at });
    }
  }
}
