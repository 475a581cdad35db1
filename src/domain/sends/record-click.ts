import type { EntityManager } from '@mikro-orm/postgresql';
import { PushSend } from '../../persistence/entities/push-send.ts';
import { notFound } from '../errors.ts';

/**
 * A click on a push: the send's first click is kept, later ones change nothing (one counted click per send). A click
 * that comes after the test was decided is stored but does not change the decision, whose results are frozen.
 */
export async function recordClick(em: EntityManager, accountId: string, input: { sendId: string; clickedAt?: Date | undefined }): Promise<PushSend> {
  const updated = await markClicked(em, accountId, input.sendId, input.clickedAt ?? new Date());
  const send = await em.findOne(PushSend, { id: input.sendId, accountId }, { refresh: updated > 0 });
  if (!send) throw notFound('Send');
  return send;
}

/** Sets the send's click unless it has one; answers 1 when this was its first click. */
export const markClicked = (em: EntityManager, accountId: string, sendId: string, at: Date): Promise<number> =>
  em.nativeUpdate(PushSend, { id: sendId, accountId, clickedAt: null }, { clickedAt: at });

/** The sendId of a `push.clicked` event, when it names one in the shape a send id has. */
export function clickedSendId(eventType: string, attributes: Record<string, unknown> | null | undefined): string | undefined {
  const sendId = attributes?.sendId;
  if (eventType !== 'push.clicked' || typeof sendId !== 'string') return undefined;
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(sendId) ? sendId.toLowerCase() : undefined;
}
