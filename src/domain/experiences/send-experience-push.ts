import { Notification } from '../../persistence/entities/notification.ts';
import { derivedUuid } from '../../security/ids.ts';
import { deliverPushes, type DeliverDeps, type DeliverOutcome } from '../sends/deliver-pushes.ts';
import { appControls } from '../sends/app-controls.ts';
import { pendingRows } from '../sends/pending-rows.ts';
import { loadPushContent } from '../sends/push-content.ts';
import { marks, wholeRange } from '../sends/send-scope.ts';
import type { RunRef } from './run-ref.ts';

/** A person's devices a push node sends to, at most (a person has a few). */
const maxDevicesPerPerson = 100;

/** What a push node's send came to, as the run's path records it; `heldUntil`: quiet hours hold some of it until then. */
export interface ExperiencePushOutcome {
  summary: string;
  heldUntil: number | null;
}

interface Input {
  run: RunRef;
  nodeId: string;
  notificationId: string;
  /** The run's step at the node (its path's length), so a node reached twice sends twice and a retry never does. */
  step: number;
  resumeAfter?: string | undefined;
}

/**
 * An experience's push node: the message to the run's person, one push to each subscribed device of the message's app whose
 * clientUserId is the run's, through the send engine with the app's frequency cap and quiet hours. The pushes are
 * `push_sends` rows of source `flow`, with ids derived from the run, the node, its step and the device, written once:
 * a retry, or the call after quiet hours end, sends what is still pending. An anonymous run, or a person without a
 * device, has `no device`.
 */
export async function sendExperiencePush(deps: DeliverDeps, input: Input): Promise<DeliverOutcome & ExperiencePushOutcome> {
  const { em } = deps;
  const notification = await em.findOne(Notification, { id: input.notificationId, accountId: input.run.accountId });
  if (!notification) return { kind: 'done', summary: 'not sent: the message no longer exists', heldUntil: null };
  if (input.run.clientUserId === null) return { kind: 'done', summary: 'no device', heldUntil: null };
  const connection = em.getConnection();
  // Every device of the person, to find the rows an earlier call wrote even for a device that has left since; only
  // the subscribed ones get a row now.
  const devices = await connection.execute<Array<{ id: string; reachable: boolean }>>(
    `select id, (subscribed and deleted_at is null) as reachable from devices where app_id = ? and client_user_id = ? order by id limit ?`,
    [notification.appId, input.run.clientUserId, maxDevicesPerPerson],
  );
  if (devices.length === 0) return { kind: 'done', summary: 'no device', heldUntil: null };
  const sendIdOf = (deviceId: string) => derivedUuid(input.run.runId, input.nodeId, String(input.step), deviceId);
  const reachable = devices.filter((device) => device.reachable);
  if (reachable.length) {
    await connection.execute(
      `insert into push_sends (id, account_id, source, device_id, notification_id, status, created_at)
       values ${reachable.map(() => `(?, ?, 'flow', ?, ?, 'pending', now())`).join(', ')}
       on conflict (id) do nothing`,
      reachable.flatMap((device) => [sendIdOf(device.id), input.run.accountId, device.id, notification.id]),
    );
  }
  const rows = await connection.execute<Array<{ id: string }>>(
    `select id from push_sends where id in (${marks(devices.length)})`,
    devices.map((device) => sendIdOf(device.id)),
  );
  if (rows.length === 0) return { kind: 'done', summary: 'no device', heldUntil: null };
  const ids = rows.map((row) => row.id);
  const outcome = await deliverPushes(deps, {
    sources: [await pendingRows(em, { scope: { kind: 'experience', sendIds: ids }, range: wholeRange, resumeAfter: input.resumeAfter })],
    notification: await loadPushContent(em, notification.id),
    data: { experienceId: input.run.experienceId, experienceRunId: input.run.runId },
    ...(await appControls(em, notification.appId, { enforce: true, quietDeadline: Date.now() + notification.expiry * 60_000 })),
  });
  return { ...outcome, ...(await summarise(deps, ids)) };
}

async function summarise({ em }: DeliverDeps, ids: string[]): Promise<ExperiencePushOutcome> {
  const counts = await em.getConnection().execute<Array<{ status: string; n: string; held: Date | null }>>(
    `select status, count(*) as n, min(not_before) as held from push_sends where id in (${marks(ids.length)}) group by status`,
    ids,
  );
  const of = (status: string) => Number(counts.find((row) => row.status === status)?.n ?? 0);
  const heldRow = counts.find((row) => row.status === 'pending' && row.held !== null);
  const heldUntil = heldRow?.held ? new Date(heldRow.held).getTime() : null;
  const parts = [
    of('sent') ? `sent to ${of('sent')} device${of('sent') === 1 ? '' : 's'}` : '',
    of('capped') ? (of('capped') === ids.length ? 'capped' : `${of('capped')} capped`) : '',
    of('quiet') ? `${of('quiet')} in quiet hours` : '',
    heldUntil !== null ? `delayed until ${new Date(heldUntil).toISOString()}` : '',
    of('expired') ? `${of('expired')} expired` : '',
    of('failed') + of('unconfirmed') ? `${of('failed') + of('unconfirmed')} failed` : '',
    of('unregistered') ? `${of('unregistered')} unregistered` : '',
    of('skipped') ? `${of('skipped')} skipped` : '',
  ].filter(Boolean);
  return { summary: parts.join('; ') || 'no device', heldUntil };
}
