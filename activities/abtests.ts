import { sendArm } from '../src/domain/abtests/send-arm.ts';
import { beginAbTest, completeAbTest, decideAbTest, endAbTest, readAbTestResults } from '../src/domain/abtests/run-ab-test.ts';
import type { AbTestArm } from '../src/persistence/entities/ab-test-member.ts';
import { engineDeps, throwRetry } from './send-engine.ts';
import type { ActivityDeps } from './deps.ts';
import { withDomainFailures } from './domain-failures.ts';
import { whileHeartbeating } from './heartbeat.ts';

/** An A/B test run's I/O: the audience snapshot, the sends, the results and the test's state. */
export function createAbTestActivities({ orm, temporal, delivery, push }: ActivityDeps) {
  const publishDeps = () => ({ em: orm.em.fork(), temporal, delivery });
  return {
    // The test run's own steps heartbeat while they run (workflows/ab-test.ts).
    beginAbTest(input: { testId: string }) {
      return whileHeartbeating(() => withDomainFailures(() => beginAbTest(publishDeps(), input.testId)));
    },
    /** A whole arm in one activity: each page done is heartbeated, and a retry resumes after the last one. */
    async sendAbTestArm(input: { testId: string; arm: AbTestArm }): Promise<{ sent: number; failed: number }> {
      const { deps, resumeAfter } = engineDeps({ orm, push });
      const outcome = await withDomainFailures(() => sendArm(deps, { ...input, resumeAfter }));
      if (outcome.kind === 'retry') throwRetry(outcome);
      return { sent: outcome.sent, failed: outcome.failed };
    },
    readAbTestResults(input: { testId: string }) {
      return whileHeartbeating(() => readAbTestResults(orm.em.fork(), input.testId));
    },
    decideAbTest(input: { testId: string }) {
      return whileHeartbeating(() => decideAbTest(orm.em.fork(), input.testId));
    },
    completeAbTest(input: { testId: string }) {
      return whileHeartbeating(() => withDomainFailures(() => completeAbTest(publishDeps(), input.testId)));
    },
    endAbTest(input: { testId: string; state: 'CANCELLED' | 'FAILED'; reason: string }) {
      return whileHeartbeating(() => endAbTest(orm.em.fork(), input));
    },
  };
}
