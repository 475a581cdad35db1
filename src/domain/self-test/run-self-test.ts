import { randomUUID } from 'node:crypto';
import type { TemporalAccess } from '../../temporal/temporal-access.ts';
import type { SelfTestResult } from '../../../workflows/self-test.contract.ts';
import { startSelfTest } from '../../temporal/starters/self-test.ts';

/** Runs the self-test workflow to completion and returns what the worker read from Postgres. */
export async function runSelfTest(temporal: TemporalAccess): Promise<SelfTestResult & { runId: string }> {
  const handle = await startSelfTest(temporal, randomUUID());
  const result = await handle.result();
  return { ...result, runId: handle.firstExecutionRunId };
}
