import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AbTest } from '../../persistence/entities/ab-test.ts';
import type { WinnerMetric } from './results-types.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';

export const defaultExpiryMinutes = 1440;
export const defaultTestPercent = 20;

/** A new test in NEW; messages, playTime and the segment may come later, through update. */
export async function createAbTest(
  em: EntityManager,
  accountId: string,
  input: {
    appId: string;
    abTestName: string;
    description?: string | null | undefined;
    filterId?: string | null | undefined;
    expiry?: number | undefined;
    winnerMetric?: WinnerMetric | undefined;
  },
): Promise<AbTest> {
  await findOwnedApp(em, accountId, input.appId);
  const test = em.create(AbTest, {
    id: randomUUID(),
    accountId,
    appId: input.appId,
    name: input.abTestName,
    description: input.description ?? null,
    filterId: input.filterId ?? null,
    templateIdA: null,
    templateIdB: null,
    state: 'NEW',
    playTime: null,
    playTimeOffsetMinutes: 0,
    expiry: input.expiry ?? defaultExpiryMinutes,
    testPercent: defaultTestPercent,
    winnerMetric: input.winnerMetric ?? 'ctr',
    audienceSize: null,
    results: null,
    winner: null,
    failureReason: null,
    startedAt: null,
    decidedAt: null,
    completedAt: null,
  });
  await em.flush();
  return test;
}
