import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AbTest, type AbTestState } from '../../persistence/entities/ab-test.ts';
import { derivedId } from '../../security/ids.ts';
import { publishEvent, type PublishDeps } from '../events/publish-event.ts';
import { computeResults, countArms, type AbTestResults } from './ab-test-results.ts';
import { countAudience, snapshotAudience } from './audience.ts';
import { minimumAudience } from './check-ab-test.ts';
import { formatPlayTime } from './play-time.ts';
import type { WinnerMetric } from './results-types.ts';

/**
 * The steps an A/B test's run takes, one function per activity. Each can run again after a crash and finds what its
 * earlier try did: the audience is snapshotted once, the results are stored once, events have derived ids.
 */

export type BeginOutcome =
  | { outcome: 'started'; audience: number; arms: { A: number; B: number; remainder: number }; expiryMinutes: number; metric: WinnerMetric }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'not-scheduled'; state: AbTestState };

/** At playTime: checks the segment again, snapshots and splits the audience, and marks the test RUNNING. */
export async function beginAbTest(deps: PublishDeps, testId: string): Promise<BeginOutcome> {
  const begun = await deps.em.transactional(async (tx): Promise<BeginOutcome> => {
    const test = await tx.findOneOrFail(AbTest, { id: testId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (test.state === 'RUNNING') {
      // A retry after the commit: the snapshot is there.
      const counts = await countArms(tx, testId);
      const arms = { A: counts.A.devices, B: counts.B.devices, remainder: counts.remainder.devices };
      return { outcome: 'started', audience: test.audienceSize ?? 0, arms, expiryMinutes: test.expiry, metric: test.winnerMetric };
    }
    if (test.state !== 'SCHEDULED') return { outcome: 'not-scheduled', state: test.state };
    const { found, devices } = await countAudience(tx, test);
    if (!found || devices < minimumAudience) {
      const reason = found ? `at playTime the segment had ${devices} subscribed devices; an A/B test needs more than 8` : 'the segment no longer exists';
      Object.assign(test, { state: 'FAILED', failureReason: reason, completedAt: new Date() });
      return { outcome: 'failed', reason };
    }
    const arms = await snapshotAudience(tx, test);
    const audience = arms.A + arms.B + arms.remainder;
    Object.assign(test, { state: 'RUNNING', startedAt: new Date(), audienceSize: audience });
    return { outcome: 'started', audience, arms, expiryMinutes: test.expiry, metric: test.winnerMetric };
  });
  if (begun.outcome === 'started') {
    const test = await deps.em.fork().findOneOrFail(AbTest, { id: testId });
    await publishEvent(deps, {
      eventId: derivedId('evt_', testId, 'abtest.started'),
      accountId: test.accountId,
      type: 'abtest.started',
      data: {
        result: {
          abTestId: testId,
          appId: test.appId,
          audience: begun.audience,
          arms: begun.arms,
          playTime: formatPlayTime(test.playTime!, test.playTimeOffsetMinutes),
          expiry: test.expiry,
        },
      },
    });
  }
  return begun;
}

/** The provisional results, counted now (for the run's `state` query). */
export async function readAbTestResults(em: EntityManager, testId: string): Promise<AbTestResults> {
  const { winnerMetric } = await em.findOneOrFail(AbTest, { id: testId }, { fields: ['winnerMetric'] });
  return computeResults(await countArms(em, testId), null, winnerMetric);
}

/**
 * Decides once, by the test's metric: counts, computes the statistics and stores them with the winner; later clicks
 * and conversions change nothing.
 */
export async function decideAbTest(em: EntityManager, testId: string): Promise<{ winner: 'A' | 'B' | null; results: AbTestResults }> {
  return em.transactional(async (tx) => {
    const test = await tx.findOneOrFail(AbTest, { id: testId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (test.results) return { winner: test.results.winner, results: test.results };
    const decidedAt = new Date();
    const results = computeResults(await countArms(tx, testId), decidedAt, test.winnerMetric);
    Object.assign(test, { results, winner: results.winner, decidedAt });
    return { winner: results.winner, results };
  });
}

/**
 * COMPLETED, and `abtest.completed` with the winner, both click-through rates and the p-value. The stored results get
 * the remainder's sends, which came after the decision; the arms' figures stay as decided.
 */
export async function completeAbTest(deps: PublishDeps, testId: string): Promise<void> {
  await deps.em.transactional(async (tx) => {
    const test = await tx.findOneOrFail(AbTest, { id: testId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (test.state !== 'RUNNING') return;
    const { remainder } = await countArms(tx, testId);
    if (test.results) test.results = { ...test.results, remainder: { devices: remainder.devices, sent: remainder.sent } };
    test.state = 'COMPLETED';
    test.completedAt = new Date();
  });
  const test = await deps.em.fork().findOneOrFail(AbTest, { id: testId });
  const results = test.results;
  await publishEvent(deps, {
    eventId: derivedId('evt_', testId, 'abtest.completed'),
    accountId: test.accountId,
    type: 'abtest.completed',
    data: {
      result: {
        abTestId: testId,
        appId: test.appId,
        winner: results?.winner ?? null,
        ctrA: results?.arms.A.ctr ?? null,
        ctrB: results?.arms.B.ctr ?? null,
        pValue: results?.significance.pValue ?? null,
      },
    },
  });
}

/** CANCELLED or FAILED, unless the test has already ended. */
export async function endAbTest(em: EntityManager, input: { testId: string; state: 'CANCELLED' | 'FAILED'; reason: string }): Promise<void> {
  await em.nativeUpdate(
    AbTest,
    { id: input.testId, state: { $nin: ['COMPLETED', 'CANCELLED', 'FAILED'] } },
    { state: input.state, failureReason: input.state === 'FAILED' ? input.reason : null, completedAt: new Date() },
  );
}
