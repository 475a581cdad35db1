import type { EntityManager } from '@mikro-orm/postgresql';
import type { AbTest } from '../../persistence/entities/ab-test.ts';
import { Notification } from '../../persistence/entities/notification.ts';
import type { ErrorDetail } from '../errors.ts';
import { armSize, countAudience } from './audience.ts';
import { winnerMetricLabel } from '../../sandbox-safe/winner-metric.ts';
import { armSizeWarning, TYPICAL_DETECTABLE_CHANGE } from './statistics.ts';

export const expiryRange = { min: 1, max: 43_200 } as const;
export const testPercentRange = { min: 2, max: 100 } as const;
/** The interface spec: "an audience segment containing more than 8 devices". */
export const minimumAudience = 9;

export interface AbTestCheck {
  problems: ErrorDetail[];
  warnings: string[];
  audience: number | null;
}

/** Every check validation and scheduling make, all at once, so the client learns every problem in one answer. */
export async function checkAbTest(em: EntityManager, test: AbTest, now = new Date()): Promise<AbTestCheck> {
  const problems: ErrorDetail[] = [];
  const warnings: string[] = [];
  let audience: number | null = null;

  if (!test.filterId) problems.push({ path: 'filterId', message: 'choose the audience segment (filterId)' });
  else {
    const segment = await countAudience(em, test);
    if (!segment.found) problems.push({ path: 'filterId', message: `segment ${test.filterId} is not a segment of app ${test.appId}` });
    else {
      audience = segment.devices;
      if (audience < minimumAudience) problems.push({ path: 'filterId', message: `the segment has ${audience} subscribed devices; an A/B test needs more than 8` });
    }
  }

  const ids = [test.templateIdA, test.templateIdB].filter((id): id is string => Boolean(id));
  const messages = ids.length ? await em.find(Notification, { id: { $in: ids }, accountId: test.accountId }, { fields: ['id', 'appId', 'status'] }) : [];
  for (const [field, id] of [['templateIdA', test.templateIdA], ['templateIdB', test.templateIdB]] as const) {
    const message = messages.find((candidate) => candidate.id === id);
    if (!id) problems.push({ path: field, message: 'choose a message' });
    else if (!message || message.appId !== test.appId) problems.push({ path: field, message: `message ${id} is not a message of app ${test.appId}` });
    else if (message.status === 'RECORDING') problems.push({ path: field, message: `message ${id} is still RECORDING` });
  }
  if (test.templateIdA && test.templateIdA === test.templateIdB) problems.push({ path: 'templateIdB', message: 'A and B are the same message' });

  if (!test.playTime) problems.push({ path: 'playTime', message: 'set playTime' });
  else if (test.playTime.getTime() <= now.getTime()) problems.push({ path: 'playTime', message: 'playTime is in the past' });
  if (test.expiry < expiryRange.min || test.expiry > expiryRange.max) problems.push({ path: 'expiry', message: `must be ${expiryRange.min} to ${expiryRange.max} minutes` });
  if (test.testPercent < testPercentRange.min || test.testPercent > testPercentRange.max) {
    problems.push({ path: 'testPercent', message: `must be ${testPercentRange.min} to ${testPercentRange.max}` });
  }

  if (audience !== null && audience >= minimumAudience && test.testPercent >= testPercentRange.min) {
    const warning = armSizeWarning(armSize(audience, test.testPercent), TYPICAL_DETECTABLE_CHANGE, winnerMetricLabel(test.winnerMetric));
    if (warning) warnings.push(warning);
  }
  return { problems, warnings, audience };
}
