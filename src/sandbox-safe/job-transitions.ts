/**
 * The recording job lifecycle. Pure and free of Node APIs: the job workflow checks transitions with it (in update
 * validators and again under its lock), and the persistence step checks it once more against the stored row.
 *
 *   CREATED ──execute──▶ ASSIGNED ──submit──▶ SUBMITTED ──select──▶ SELECTED ──accept──▶ ACCEPTED
 *                                   (submit again)  ▲ (select again) ┘
 *   any state but ACCEPTED/CANCELLED ──cancel──▶ CANCELLED
 */
export const jobStatuses = ['CREATED', 'ASSIGNED', 'SUBMITTED', 'SELECTED', 'ACCEPTED', 'CANCELLED'] as const;
export type JobStatus = (typeof jobStatuses)[number];

export type JobAction = 'update' | 'execute' | 'submitRecording' | 'select' | 'accept' | 'cancel';

const allowedFrom: Record<JobAction, readonly JobStatus[]> = {
  update: ['CREATED', 'ASSIGNED', 'SUBMITTED'],
  execute: ['CREATED'],
  submitRecording: ['ASSIGNED', 'SUBMITTED'],
  select: ['SUBMITTED', 'SELECTED'],
  accept: ['SELECTED'],
  cancel: ['CREATED', 'ASSIGNED', 'SUBMITTED', 'SELECTED'],
};

const resultOf: Record<JobAction, JobStatus | undefined> = {
  update: undefined,
  execute: 'ASSIGNED',
  submitRecording: 'SUBMITTED',
  select: 'SELECTED',
  accept: 'ACCEPTED',
  cancel: 'CANCELLED',
};

/**
 * The HTTP route of each action, as a refusal names it: callers know the routes, not the workflow's update names.
 * Select is served on two paths (the spec's documented one and its sample's).
 */
const routeOf: Record<JobAction, string> = {
  update: 'PUT /job/update',
  execute: 'POST /job/executeJob',
  submitRecording: 'POST /job/recording',
  select: 'POST /richPush/select (or /job/select)',
  accept: 'POST /job/accept',
  cancel: 'POST /job/cancel',
};

export const isFinal = (status: JobStatus) => status === 'ACCEPTED' || status === 'CANCELLED';

/**
 * The status after `action`, or a message naming the current state, the route of the action and the states it
 * requires, e.g. "The job is CREATED; POST /job/recording requires ASSIGNED or SUBMITTED".
 */
export function transition(action: JobAction, current: JobStatus): { ok: true; next: JobStatus } | { ok: false; message: string } {
  const allowed = allowedFrom[action];
  if (!allowed.includes(current)) {
    const required = allowed.length === 1 ? allowed[0] : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
    return { ok: false, message: `The job is ${current}; ${routeOf[action]} requires ${required}` };
  }
  return { ok: true, next: resultOf[action] ?? current };
}
