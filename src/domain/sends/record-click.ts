import type { EntityManager } from '@mikro-orm/postgresql';
import { PushSend } from '../../persistence/entities/push-send.ts';
import { DomainError, notFound } from '../errors.ts';

/**
 * How far a click's time may lie before its push's `sentAt` or after now and still count: the clocks of the device,
 * the client's backend and this service differ, and a push can be tapped before its answer is stored
 * (docs/spec-decisions.md, "Clicks").
 */
export const clickClockSkewMs = 30_000;

/**
 * A click on a push: the send's first click is kept, later ones change nothing (one counted click per send). A click
 * that comes after the test was decided is stored but does not change the decision, whose results are frozen. A click
 * at a time it cannot have happened (before the push was sent, or in the future) is 400 `invalid_click_time`.
 */
export async function recordClick(em: EntityManager, accountId: string, input: { sendId: string; clickedAt?: Date | undefined }): Promise<PushSend> {
  const send = await em.findOne(PushSend, { id: input.sendId, accountId });
  if (!send) throw notFound('Send');
  const clickedAt = input.clickedAt ?? new Date();
  const problem = impossibleClick(send, clickedAt, new Date());
  if (problem) {
    throw new DomainError('invalid_click_time', `The click cannot be counted: ${problem}`, [{ path: input.clickedAt ? 'body.clickedAt' : 'body.sendId', message: problem }]);
  }
  const updated = await markClicked(em, accountId, input.sendId, clickedAt);
  return updated > 0 ? em.findOneOrFail(PushSend, { id: input.sendId, accountId }, { refresh: true }) : send;
}

/** An ingested `push.clicked` event's click: counted as POST /push/click counts it, and ignored when it cannot have happened. */
export async function countClick(em: EntityManager, accountId: string, sendId: string, clickedAt: Date): Promise<void> {
  const send = await em.findOne(PushSend, { id: sendId, accountId }, { fields: ['status', 'sentAt', 'clickedAt'] });
  if (send && send.clickedAt == null && !impossibleClick(send, clickedAt, new Date())) await markClicked(em, accountId, sendId, clickedAt);
}

/** Why a click at `clickedAt` on this push cannot have happened by `now` (beyond the clocks' skew); undefined when it can. */
export function impossibleClick(send: Pick<PushSend, 'status' | 'sentAt'>, clickedAt: Date, now: Date): string | undefined {
  const skew = `${clickClockSkewMs / 1000} s of clock skew allowed`;
  if (!send.sentAt) return `the push was not sent (it is ${send.status}), so it cannot have been clicked`;
  if (clickedAt.getTime() < send.sentAt.getTime() - clickClockSkewMs) {
    return `clickedAt ${clickedAt.toISOString()} is before the push was sent (${send.sentAt.toISOString()}; ${skew})`;
  }
  if (clickedAt.getTime() > now.getTime() + clickClockSkewMs) return `clickedAt ${clickedAt.toISOString()} is in the future (now ${now.toISOString()}; ${skew})`;
  return undefined;
}

/** Sets the send's click unless it has one; answers 1 when this was its first click. */
const markClicked = (em: EntityManager, accountId: string, sendId: string, at: Date): Promise<number> =>
  em.nativeUpdate(PushSend, { id: sendId, accountId, clickedAt: null }, { clickedAt: at });

/** The sendId of a `push.clicked` event, when it names one in the shape a send id has. */
export function clickedSendId(eventType: string, attributes: Record<string, unknown> | null | undefined): string | undefined {
  const sendId = attributes?.sendId;
  if (eventType !== 'push.clicked' || typeof sendId !== 'string') return undefined;
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(sendId) ? sendId.toLowerCase() : undefined;
}
