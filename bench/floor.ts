import { startEmbeddedTemporal } from '../src/dev/embedded-temporal.ts';
import { cachedWorkflowsPerWorker, installTemporalRuntime } from '../src/temporal/worker.ts';
import { createBenchLogger } from './support/logger.ts';
import { positiveInt } from './support/env.ts';
import { fmt } from './support/stats.ts';
import { cpuSnapshot } from './support/cpu.ts';
import { measureHandOverFloor, measureTemporalFloor } from './support/temporal-floor.ts';

/**
 * `npm run bench:floor`: the Temporal floor alone, on a fresh in-memory dev server (what other benches divide by),
 * then the hand-over floor on the same server: HANDOVER_RUNS waiting runs each handed two events in one signal, on a
 * worker that caches HANDOVER_CACHE runs (the service's number by default).
 */
const progress = (message: string) => process.stderr.write(`[bench:floor] ${message}\n`);
installTemporalRuntime(createBenchLogger());
const units = positiveInt('N', 500);
const handOverRuns = positiveInt('HANDOVER_RUNS', 2000);
const concurrency = positiveInt('CONCURRENCY', 16);
/** Runs the hand-over floor's worker keeps cached: the service's by default; more, to see what a replay costs. */
const cachedWorkflows = positiveInt('HANDOVER_CACHE', cachedWorkflowsPerWorker);
const server = await startEmbeddedTemporal({ namespace: 'default', progress });
/** CPU seconds of this process (the floors' worker and client) and the dev server it started. */
const cpuSeconds = () => [...(cpuSnapshot() ?? new Map([['none', Number.NaN]])).values()].reduce((sum, seconds) => sum + seconds, 0);
try {
  progress(`measuring ${units} runs, ${concurrency} in flight`);
  const floor = await measureTemporalFloor({ address: server.address, namespace: 'default', units, concurrency, cpuSeconds });
  console.log(`floor: ${fmt(floor.perSecond)} runs/s (one workflow, one activity), p50 ${fmt(floor.p50)} ms, p99 ${fmt(floor.p99)} ms, ${fmt(floor.cpuMsPerUnit)} CPU ms a run`);
  progress(`measuring hand-overs to ${handOverRuns} waiting runs, ${cachedWorkflows} cached`);
  const handOver = await measureHandOverFloor({ address: server.address, namespace: 'default', units: handOverRuns, concurrency, cachedWorkflows, cpuSeconds });
  const handOverRatio = handOver.perSecond / floor.perSecond;
  console.log(`hand-over floor: ${fmt(handOver.perSecond)} runs/s (${fmt(handOverRatio, 2)}x the floor), p50 ${fmt(handOver.p50)} ms, p99 ${fmt(handOver.p99)} ms, ${fmt(handOver.cpuMsPerUnit)} CPU ms a hand-over`);
  console.log(
    JSON.stringify({
      bench: 'floor',
      unit: 'runs/s',
      floor: floor.perSecond,
      p50Ms: floor.p50,
      p99Ms: floor.p99,
      cpuMsPerUnit: floor.cpuMsPerUnit,
      units,
      concurrency,
      handOverFloor: handOver.perSecond,
      handOverRatioToFloor: handOverRatio,
      handOverP50Ms: handOver.p50,
      handOverCpuMsPerUnit: handOver.cpuMsPerUnit,
      handOverRuns,
      handOverCachedWorkflows: cachedWorkflows,
    }),
  );
} finally {
  await server.stop();
}
