import { beginAbTest, completeAbTest, decideAbTest, endAbTest, readAbTestResults } from '../src/domain/abtests/run-ab-test.ts';
import type { AbTestArm } from '../src/persistence/entities/ab-test-member.ts';
import type { ActivityDeps } from './deps.ts';
import { withDomainFailures } from './domain-failures.ts';

/** An A/B test run's I/O: the audience snapshot, the sends, the results and the test's state. */
export function createAbTestActivities({ orm, temporal, delivery }: ActivityDeps) {
  const publishDeps = () => ({ em: orm.em.fork(), temporal, delivery });
  return {
    beginAbTest(input: { testId: string }) {
      return withDomainFailures(() => beginAbTest(publishDeps(), input.testId));
    },
    async sendAbTestArm(_input: { testId: string; arm: AbTestArm }): Promise<{ sent: number; failed: number }> {
      throw new Error('sending is not built yet');
    },
    readAbTestResults(input: { testId: string }) {
      return readAbTestResults(orm.em.fork(), input.testId);
    },
    decideAbTest(input: { testId: string }) {
      return decideAbTest(orm.em.fork(), input.testId);
    },
    completeAbTest(input: { testId: string }) {
      return withDomainFailures(() => completeAbTest(publishDeps(), input.testId));
    },
    endAbTest(input: { testId: string; state: 'CANCELLED' | 'FAILED'; reason: string }) {
      return endAbTest(orm.em.fork(), input);
    },
  };
}
