import type { EntityManager } from '@mikro-orm/postgresql';
import { createPushPace } from '../../persistence/push-pace.ts';
import type { SendThrottle } from '../sends/deliver-pushes.ts';

/** The throttle a send may be scheduled with (`ratePerMinute`), in pushes a minute. */
export const minRatePerMinute = 100;
export const maxRatePerMinute = 1_000_000;

/**
 * A throttled send's pace: one `push_pace` row per send (`send:<notificationId>`), which every shard and worker draws
 * on, as the provider's own pace is drawn on (docs/adr/0056). Its waves hold a second's worth of pushes at most (one
 * reservation a second), sent one at a time (src/domain/sends/send-in-slots.ts), so every second holds its share.
 */
export function campaignThrottle(em: EntityManager, notificationId: string, ratePerMinute: number): SendThrottle {
  return {
    pace: createPushPace(em, { key: `send:${notificationId}`, perMinute: ratePerMinute }),
    waveSize: Math.max(1, Math.ceil(ratePerMinute / 60)),
  };
}
