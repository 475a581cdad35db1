import { formatTime } from '../../components/format.ts';
import type { AbTestState, AbTestWithResults } from './abtest-queries.ts';

type StepStatus = 'passed' | 'current' | 'ahead' | 'unknown';

interface Step {
  state: AbTestState;
  status: StepStatus;
  /** What the API says of when: only times it answers, never guessed. */
  when?: string;
}

const path: AbTestState[] = ['NEW', 'VALIDATED', 'SCHEDULED', 'RUNNING', 'COMPLETED'];

/** Whether anything was sent to an arm: then the test did run, even if it ended cancelled or failed. */
const hasRun = (test: AbTestWithResults) => Boolean(test.results && test.results.arms.A.sent + test.results.arms.B.sent > 0);

/**
 * The test's way through its states. The API answers its state now, not its history: a step before the current one
 * was passed; for a cancelled or failed test only RUNNING can be known (from sends), the others are marked unknown.
 */
export function stepsOf(test: AbTestWithResults): Step[] {
  const ended = test.state === 'CANCELLED' || test.state === 'FAILED';
  const current = path.indexOf(test.state);
  const steps: Step[] = (ended ? path.slice(0, 4) : path).map((state, index) => {
    let status: StepStatus = index < current ? 'passed' : index === current ? 'current' : 'ahead';
    if (ended) status = state === 'NEW' ? 'passed' : state === 'RUNNING' && hasRun(test) ? 'passed' : 'unknown';
    return { state, status };
  });
  if (ended) steps.push({ state: test.state, status: 'current', when: `last changed ${formatTime(test.updatedAt)}` });
  const timeOf: Partial<Record<AbTestState, string>> = {
    NEW: `created ${formatTime(test.createdAt)}`,
    SCHEDULED: test.playTime ? `runs at ${test.playTime}` : undefined,
    COMPLETED: test.results?.decidedAt ? `decided ${formatTime(test.results.decidedAt)}` : undefined,
  };
  return steps.map((step) => ({ ...step, when: step.when ?? timeOf[step.state] }));
}

const statusWords: Record<StepStatus, string> = { passed: 'passed', current: 'now', ahead: 'not yet', unknown: 'not known' };

/** The states as an ordered list drawn as a line of steps; the current one marked for screen readers too. */
export function StateTimeline({ test }: { test: AbTestWithResults }) {
  return (
    <ol className="timeline" aria-label="The test’s states">
      {stepsOf(test).map((step) => (
        <li key={step.state} className={`step ${step.status}`} aria-current={step.status === 'current' ? 'step' : undefined}>
          <span className="step-state">{step.state}</span>
          <span className="step-status">{statusWords[step.status]}</span>
          {step.when && <span className="hint">{step.when}</span>}
        </li>
      ))}
    </ol>
  );
}
