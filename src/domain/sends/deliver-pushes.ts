import type { EntityManager } from '@mikro-orm/postgresql';
import type { PushNotification, PushPlatform, PushProvider, PushResult } from '../../outbound/push/push-provider.ts';
import { marks } from './send-scope.ts';
import { takeSlots, type PushPace, type Slots } from '../../persistence/push-pace.ts';
import { newSlotCursor, sendInSlots } from './send-in-slots.ts';
import type { CapGate } from './frequency-cap.ts';
import type { QuietGate, QuietHold } from './quiet-hours.ts';

/**
 * The one send engine: A/B arms, the A/B remainder, campaigns, experiences' push nodes and test sends all go through
 * `deliverPushes`. Before a wave is sent, the app's quiet hours may hold some of its pushes and its frequency cap
 * answer others `capped` (quiet-hours.ts, frequency-cap.ts).
 *
 * A send's pushes come from wave sources, each taken to its end in turn: `pending` rows written before the send
 * (pending-rows.ts: A/B arms, test sends, experiences' pushes, a campaign's retries and its pushes held by quiet hours) or a campaign shard's snapshot
 * (campaigns/campaign-shard-source.ts). The engine works in waves of the provider's `waveSize`: it waits for the
 * wave's slots in the provider's pace, has the source claim a wave (committed before anything is sent), hands
 * those messages to the provider, each when its own slot begins (send-in-slots.ts), and has the source store
 * every answer, unsubscribing devices whose token is gone.
 * A wave whose provider asked to retry is handed back and ends the call with `retry`, so the next attempt sends
 * exactly those first. A push is claimed once, so it is sent at most once: whatever an attempt had claimed and not
 * answered when it died is marked `unconfirmed`, never sent again (docs/adr/0055).
 */

export interface DeliverDeps {
  em: EntityManager;
  push: PushProvider;
  /** Called after each whole wave with its last device, so a retry can resume after it (the activity heartbeats it). */
  progress?: (lastDeviceId: string) => void;
  signal?: AbortSignal | undefined;
}

/** A push claimed for this attempt, with what sending it needs. */
export interface ClaimedPush {
  sendId: string;
  deviceId: string;
  token: string | null;
  platform: PushPlatform;
  /** Still subscribed and not deleted: a device that left since the snapshot is skipped. */
  reachable: boolean;
  /** The device's own time zone, if it names one (quiet hours). */
  timezone: string | null;
}

export interface WaveSource {
  /** Claims the next wave of at most `size` pushes, in device id order; an empty wave when none is left. */
  claim(size: number): Promise<ClaimedPush[]>;
  /** Stores a wave's answers (in the wave's order); a push to retry is handed back for the next attempt. */
  store(wave: ClaimedPush[], answers: Answer[]): Promise<void>;
}

/** A send's own pace, below the provider's (a campaign's `ratePerMinute`): waves of at most `waveSize`, each waited for. */
export interface SendThrottle {
  pace: PushPace;
  waveSize: number;
}

export interface DeliverInput {
  sources: WaveSource[];
  throttle?: SendThrottle | undefined;
  /** The app's frequency cap, when it has one: a device that has had its pushes is answered `capped`. */
  cap?: CapGate | undefined;
  /** The app's quiet hours, when it has them and the send keeps them: a device in them is held (skipped or delayed). */
  quiet?: QuietGate | undefined;
  notification: PushNotification;
  /** Extra string pairs every push of this send carries (e.g. the A/B test and arm). */
  data: Record<string, string>;
}

export type DeliverOutcome = { kind: 'done' } | { kind: 'retry'; reason: string; afterMs?: number };

export const inFlightWhenStopped = 'in flight when its send attempt stopped (a worker crash); not sent again, so the device gets no second push';

export async function deliverPushes(deps: DeliverDeps, input: DeliverInput): Promise<DeliverOutcome> {
  const cursor = newSlotCursor();
  for (const source of input.sources) {
    for (;;) {
      deps.signal?.throwIfAborted();
      const size = Math.min(deps.push.waveSize, input.throttle?.waveSize ?? Number.POSITIVE_INFINITY);
      // The send's own slots first, then the provider's, so the provider's are not held while the send waits for its.
      // Each push of the wave then goes when its slot begins in both.
      const paces: Slots[] = [];
      if (input.throttle) paces.push(await takeSlots(input.throttle.pace, size, deps.signal));
      if (deps.push.pace) paces.push(await deps.push.pace(size, deps.signal));
      const wave = await source.claim(size);
      if (wave.length === 0) break;
      const now = Date.now();
      const held = new Map<string, QuietHold>();
      for (const push of wave) {
        const hold = push.reachable && push.token !== null ? input.quiet?.check(push.timezone, now) : null;
        if (hold) held.set(push.sendId, hold);
      }
      const reachable = wave.filter((push) => push.reachable && push.token !== null && !held.has(push.sendId));
      const taken = input.cap ? await input.cap.take(reachable.map((push) => push.deviceId)) : undefined;
      const sendable = taken ? reachable.filter((push) => taken.allowed.has(push.deviceId)) : reachable;
      const results = sendable.length
        ? await sendInSlots(
            deps.push,
            sendable.map((push) => ({ sendId: push.sendId, token: push.token!, platform: push.platform, notification: input.notification, data: input.data })),
            paces,
            cursor,
            deps.signal,
          )
        : [];
      const answers = answersOf(wave, results, { held, capped: taken && { allowed: taken.allowed, reason: input.cap!.reason } });
      if (taken) {
        // A push that did not go out (refused, gone, handed back for a retry) does not count toward the cap.
        const notSent = wave.filter((push, index) => taken.allowed.has(push.deviceId) && answers[index]!.status !== 'sent');
        await input.cap!.giveBack(notSent.map((push) => push.deviceId), taken.at);
      }
      await source.store(wave, answers);
      const retry = results.filter((result) => result.outcome === 'retry');
      if (retry.length) {
        const afterMs = Math.max(0, ...retry.map((result) => result.retryAfterMs ?? 0));
        const reason = `${retry.length} push(es) to retry: ${retry[0]!.error ?? 'the provider asked to retry'}`;
        return afterMs ? { kind: 'retry', reason, afterMs } : { kind: 'retry', reason };
      }
      deps.progress?.(wave.at(-1)!.deviceId);
    }
  }
  return { kind: 'done' };
}

/**
 * A push's row as its answer leaves it: `pending` again for a retry (or held by quiet hours until `notBefore`),
 * `skipped` for a device that left since the snapshot, `capped` for one that had had its app's frequency cap, `quiet`
 * for one in quiet hours that skip, `expired` for one whose quiet hours end after the message expires.
 */
export interface Answer {
  status: 'pending' | 'sent' | 'failed' | 'unregistered' | 'unconfirmed' | 'skipped' | 'capped' | 'quiet' | 'expired';
  error: string | null;
  providerMessageId: string | null;
  notBefore?: number | undefined;
}

const heldAnswer: Record<QuietHold['kind'], Answer['status']> = { skip: 'quiet', delay: 'pending', expired: 'expired' };

/**
 * Each claimed push's answer, in the wave's order: `held`, the pushes quiet hours held, by send id; `capped`, the
 * devices a cap let through and why it held the rest.
 */
export function answersOf(
  wave: ClaimedPush[],
  results: PushResult[],
  gates: { held?: Map<string, QuietHold> | undefined; capped?: { allowed: Set<string>; reason: string } | undefined } = {},
): Answer[] {
  const answered = new Map(results.map((result) => [result.sendId, result]));
  const { held, capped } = gates;
  return wave.map((push): Answer => {
    const result = answered.get(push.sendId);
    const hold = held?.get(push.sendId);
    if (hold) return { status: heldAnswer[hold.kind], error: hold.reason, providerMessageId: null, notBefore: hold.kind === 'delay' ? hold.until : undefined };
    if (!result && capped && push.reachable && push.token !== null && !capped.allowed.has(push.deviceId)) {
      return { status: 'capped', error: capped.reason, providerMessageId: null };
    }
    if (!result) return { status: 'skipped', error: 'the device unsubscribed or was deleted after the snapshot', providerMessageId: null };
    if (result.outcome === 'retry') return { status: 'pending', error: null, providerMessageId: null };
    return { status: result.outcome, error: result.outcome === 'sent' ? null : (result.error ?? null), providerMessageId: result.providerMessageId ?? null };
  });
}

/** Unsubscribes the devices of a wave whose token the provider said is gone. */
export async function unsubscribeUnregistered(em: EntityManager, wave: ClaimedPush[], answers: Answer[]): Promise<void> {
  const devices = wave.filter((_, index) => answers[index]!.status === 'unregistered').map((push) => push.deviceId);
  if (devices.length) {
    await em.getConnection().execute(`update devices set subscribed = false, updated_at = now() where id in (${marks(devices.length)})`, devices);
  }
}
