import { startEmbeddedTemporal } from '../src/dev/embedded-temporal.ts';
import { installTemporalRuntime } from '../src/temporal/worker.ts';
import { createBenchLogger } from './support/logger.ts';
import { positiveInt } from './support/env.ts';
import { fmt } from './support/stats.ts';
import { measureTemporalFloor } from './support/temporal-floor.ts';

/** `npm run bench:floor`: the Temporal floor alone, on a fresh in-memory dev server (what other benches divide by). */
const progress = (message: string) => process.stderr.write(`[bench:floor] ${message}\n`);
installTemporalRuntime(createBenchLogger());
const units = positiveInt('N', 500);
const concurrency = positiveInt('CONCURRENCY', 16);
const server = await startEmbeddedTemporal({ namespace: 'default', progress });
try {
  progress(`measuring ${units} runs, ${concurrency} in flight`);
  const floor = await measureTemporalFloor({ address: server.address, namespace: 'default', units, concurrency });
  console.log(`floor: ${fmt(floor.perSecond)} runs/s (one workflow, one activity), p50 ${fmt(floor.p50)} ms, p99 ${fmt(floor.p99)} ms`);
  console.log(JSON.stringify({ bench: 'floor', unit: 'runs/s', floor: floor.perSecond, p50Ms: floor.p50, p99Ms: floor.p99, units, concurrency }));
} finally {
  await server.stop();
}
