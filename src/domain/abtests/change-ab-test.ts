import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AbTest } from '../../persistence/entities/ab-test.ts';
import type { WinnerMetric } from './results-types.ts';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import { withUpdateErrors } from '../../temporal/update-errors.ts';
import { cancelAbTest, withdrawAbTest } from '../../../workflows/ab-test.contract.ts';
import { abTestHandle, scheduleAbTestRun } from '../../temporal/starters/ab-test.ts';
import { DomainError, validationFailed } from '../errors.ts';
import type { PlayTime } from './play-time.ts';
import { checkAbTest, type AbTestCheck } from './check-ab-test.ts';
import { findOwnedAbTest } from './find-owned-ab-test.ts';

export interface AbTestDeps {
  em: EntityManager;
  temporal: TemporalAccess;
}

export interface AbTestChanges {
  abTestName?: string | undefined;
  description?: string | null | undefined;
  filterId?: string | null | undefined;
  templateIdA?: string | null | undefined;
  templateIdB?: string | null | undefined;
  playTime?: PlayTime | null | undefined;
  expiry?: number | undefined;
  testPercent?: number | undefined;
  winnerMetric?: WinnerMetric | undefined;
  appId?: string | undefined;
  companyId?: string | undefined;
}

const started = ['RUNNING', 'COMPLETED', 'CANCELLED', 'FAILED'];

/** Locks the account's test for the rest of the transaction. */
async function lockTest(tx: EntityManager, accountId: string, testId: string, appId?: string): Promise<AbTest> {
  await findOwnedAbTest(tx, accountId, testId, appId);
  return tx.findOneOrFail(AbTest, { id: testId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
}

/**
 * PUT /abtest/update. A change to a VALIDATED test, or to a SCHEDULED one before its playTime, returns it to NEW and
 * withdraws its schedule (the run refuses once it has started, which answers 409); from RUNNING on, nothing changes.
 */
export async function updateAbTest(deps: AbTestDeps, accountId: string, testId: string, changes: AbTestChanges): Promise<AbTest> {
  if (changes.companyId !== undefined && changes.companyId !== accountId) {
    throw validationFailed([{ path: 'body.companyId', message: 'must be the account’s id' }]);
  }
  return deps.em.transactional(async (tx) => {
    const test = await lockTest(tx, accountId, testId);
    if (changes.appId !== undefined && changes.appId !== test.appId) {
      throw validationFailed([{ path: 'body.appId', message: 'a test cannot move to another app' }]);
    }
    if (started.includes(test.state)) throw new DomainError('invalid_state', `The test is ${test.state}; it accepts no more changes`);
    const before = JSON.stringify(test);
    if (changes.abTestName !== undefined) test.name = changes.abTestName;
    if (changes.description !== undefined) test.description = changes.description;
    if (changes.filterId !== undefined) test.filterId = changes.filterId;
    if (changes.templateIdA !== undefined) test.templateIdA = changes.templateIdA;
    if (changes.templateIdB !== undefined) test.templateIdB = changes.templateIdB;
    if (changes.expiry !== undefined) test.expiry = changes.expiry;
    if (changes.testPercent !== undefined) test.testPercent = changes.testPercent;
    if (changes.winnerMetric !== undefined) test.winnerMetric = changes.winnerMetric;
    if (changes.playTime !== undefined) {
      test.playTime = changes.playTime?.at ?? null;
      test.playTimeOffsetMinutes = changes.playTime?.offsetMinutes ?? 0;
    }
    if (JSON.stringify(test) === before) return test;
    if (test.state === 'SCHEDULED') {
      await withUpdateErrors(
        async () => {
          await abTestHandle(deps.temporal, test.id).executeUpdate(withdrawAbTest);
        },
        async () => undefined,
      );
    }
    test.state = 'NEW';
    return test;
  });
}

/** Validate: every check at once; all pass → VALIDATED with the audience size and warnings, else 422. */
export async function validateAbTest(deps: AbTestDeps, accountId: string, testId: string, appId: string): Promise<{ test: AbTest; check: AbTestCheck }> {
  return deps.em.transactional(async (tx) => {
    const test = await lockTest(tx, accountId, testId, appId);
    if (started.includes(test.state)) throw new DomainError('invalid_state', `The test is ${test.state}; it cannot be validated again`);
    if (test.state === 'SCHEDULED') throw new DomainError('invalid_state', 'The test is SCHEDULED; change it first to validate it again');
    const check = await checkAbTest(tx, test);
    if (check.problems.length) throw new DomainError('abtest_not_valid', 'The A/B test is not valid', check.problems);
    test.state = 'VALIDATED';
    test.audienceSize = check.audience;
    return { test, check };
  });
}

/** Schedule: needs VALIDATED; checks again, then starts the test's run (or schedules the existing one) at playTime. */
export async function scheduleAbTest(deps: AbTestDeps, accountId: string, testId: string, appId: string): Promise<{ test: AbTest; check: AbTestCheck }> {
  return deps.em.transactional(async (tx) => {
    const test = await lockTest(tx, accountId, testId, appId);
    if (test.state !== 'VALIDATED') throw new DomainError('invalid_state', `The test is ${test.state}; schedule requires VALIDATED`);
    const check = await checkAbTest(tx, test);
    if (check.problems.length) throw new DomainError('abtest_not_valid', 'The A/B test is not valid any more', check.problems);
    await withUpdateErrors(
      () => scheduleAbTestRun(deps.temporal, { version: 1, testId, accountId, appId, name: test.name }, test.playTime!.getTime()),
      async () => {
        throw new DomainError('conflict', 'The test could not be scheduled; retry');
      },
    );
    test.state = 'SCHEDULED';
    test.audienceSize = check.audience;
    return { test, check };
  });
}

/**
 * Cancel: any state before the end. A test without a run (NEW, VALIDATED) is cancelled in its row; a scheduled or
 * running one through its run, which stops sending, declares no winner and records CANCELLED.
 */
export async function cancelAbTestRun(deps: AbTestDeps, accountId: string, testId: string, appId: string): Promise<AbTest> {
  const test = await findOwnedAbTest(deps.em, accountId, testId, appId);
  if (['COMPLETED', 'CANCELLED', 'FAILED'].includes(test.state)) throw new DomainError('invalid_state', `The test is ${test.state}; it cannot be cancelled`);
  if (test.state === 'SCHEDULED' || test.state === 'RUNNING') {
    await withUpdateErrors(
      async () => {
        await abTestHandle(deps.temporal, testId).executeUpdate(cancelAbTest);
      },
      async () => {
        // No run to stop (its start never happened): the row is all there is.
        await deps.em.nativeUpdate(AbTest, { id: testId, state: { $in: ['SCHEDULED', 'RUNNING'] } }, { state: 'CANCELLED', completedAt: new Date() });
      },
    );
  } else {
    const changed = await deps.em.nativeUpdate(AbTest, { id: testId, state: { $in: ['NEW', 'VALIDATED'] } }, { state: 'CANCELLED', completedAt: new Date() });
    if (changed === 0) return cancelAbTestRun(deps, accountId, testId, appId);
  }
  return deps.em.fork().findOneOrFail(AbTest, { id: testId });
}
