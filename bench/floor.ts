import { startEmbeddedTemporal } from '../src/dev/embedded-temporal.ts';
import { cachedWorkflowsPerWorker, installTemporalRuntime } from '../src/temporal/worker.ts';
import { createBenchLogger } from './support/logger.ts';
import { positiveInt } from './support/env.ts';
import { fmt } from './support/stats.ts';
import { measureHandOverFloor, measureTemporalFloor } from './support/temporal-floor.ts';

/**
 * `npm run bench:floor`: the Temporal floor alone, on a fresh in-memory dev server (what other benches divide by),
 * then the hand-over floor on the same server: HANDOVER_RUNS waiting runs each handed two events in one signal.
 */
const progress = (message: string) => process.stderr.write(`[bench:floor] ${message}\n`);
installTemporalRuntime(createBenchLogger());
const units = positiveInt('N', 500);
const handOverRuns = positiveInt('HANDOVER_RUNS', 2000);
const concurrency = positiveInt('CONCURRENCY', 16);
const server = await startEmbeddedTemporal({ namespace: 'default', progress });
try {
  progress(`measuring ${units} runs, ${concurrency} in flight`);
  const floor = await measureTemporalFloor({ address: server.address, namespace: 'default', units, concurrency });
  console.log(`floor: ${fmt(floor.perSecond)} runs/s (one workflow, one activity), p50 ${fmt(floor.p50)} ms, p99 ${fmt(floor.p99)} ms`);
  progress(`measuring hand-overs to ${handOverRuns} waiting runs, ${cachedWorkflowsPerWorker} cached`);
  const handOver = await measureHandOverFloor({ address: server.address, namespace: 'default', units: handOverRuns, concurrency, cachedWorkflows: cachedWorkflowsPerWorker });
  const handOverRatio = handOver.perSecond / floor.perSecond;
  console.log(`hand-over floor: ${fmt(handOver.perSecond)} runs/s (${fmt(handOverRatio, 2)}x the floor), p50 ${fmt(handOver.p50)} ms, p99 ${fmt(handOver.p99)} ms`);
  console.log(
    JSON.stringify({
      bench: 'floor',
      unit: 'runs/s',
      floor: floor.perSecond,
      p50Ms: floor.p50,
      p99Ms: floor.p99,
      units,
      concurrency,
      handOverFloor: handOver.perSecond,
      handOverRatioToFloor: handOverRatio,
      handOverP50Ms: handOver.p50,
      handOverRuns,
    }),
  );
} finally {
  await server.stop();
}
