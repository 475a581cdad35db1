import type { EntityManager } from '@mikro-orm/postgresql';
import { App } from '../../persistence/entities/app.ts';
import { frequencyCapGate, type CapGate } from './frequency-cap.ts';
import { quietHoursGate, type QuietGate } from './quiet-hours.ts';

/**
 * An app's delivery controls for a send, from one read of the app: its frequency cap (`enforce: false` records pushes
 * without holding any, for A/B arms) and, when the send says until when a held push may wait (`quietDeadline`, epoch
 * ms), its quiet hours. Either is absent when the app has none.
 */
export async function appControls(
  em: EntityManager,
  appId: string,
  options: { enforce: boolean; quietDeadline?: number | undefined },
): Promise<{ cap: CapGate | undefined; quiet: QuietGate | undefined }> {
  const app = await em.findOneOrFail(App, { id: appId }, { fields: ['frequencyCap', 'quietHours', 'defaultTimezone'] });
  return {
    cap: app.frequencyCap ? frequencyCapGate(em, app.frequencyCap, { enforce: options.enforce }) : undefined,
    quiet: app.quietHours && options.quietDeadline !== undefined ? quietHoursGate(app.quietHours, app.defaultTimezone, options.quietDeadline) : undefined,
  };
}
