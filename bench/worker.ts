/**
 * `npm run bench:worker`: how long a worker process takes to start, and how much memory it holds, with the workflow
 * bundle prebuilt (WORKFLOW_BUNDLE_PATH, as the image runs it) against bundling with webpack at start (the baseline,
 * as the worker did before), and against the Temporal floor: a bare SDK worker process with the floor's one workflow
 * and one activity, also from a prebuilt bundle. Each variant starts ROUNDS times (3), alternating, on one stack (a
 * scratch database, a Temporal dev server in memory); start is spawn → its ready line; memory is read from /proc
 * SETTLE_S (5) seconds after that, idle: resident (VmRSS) and peak (VmHWM). Figures go to stdout, progress to stderr;
 * the last stdout line is one JSON object.
 */
import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeWorkflowBundle } from '../src/temporal/workflow-bundle.ts';
import { startEntryPoint } from '../test/support/entry-point.ts';
import { positiveInt } from './support/env.ts';
import { machineLines } from './support/machine.ts';
import { processMemoryMiB } from './support/memory.ts';
import { runBench, startBenchWorkerProcess, startStack, type BenchContext, type Stack } from './support/stack.ts';
import { ascending, fmt, percentile } from './support/stats.ts';
import { floorWorkflowsPath } from './support/temporal-floor.ts';

const ROUNDS = positiveInt('ROUNDS', 3);
const SETTLE_S = positiveInt('SETTLE_S', 5, 0);
const progress = (message: string) => process.stderr.write(`[bench:worker] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

interface Sample {
  startMs: number;
  rssMiB: number;
  peakMiB: number;
}

type Variant = { name: string; start: () => Promise<ChildProcess> };

async function measure(variant: Variant): Promise<Sample> {
  const started = performance.now();
  const child = await variant.start();
  const startMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_S * 1000));
  const memory = await processMemoryMiB(child.pid!);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return { startMs, ...memory };
}

function variants(context: BenchContext, stack: Stack, floorBundlePath: string): Variant[] {
  const service = (env: NodeJS.ProcessEnv) => () => startBenchWorkerProcess(context, stack, env);
  return [
    { name: 'worker, prebuilt bundle (WORKER_ROLE=all)', start: service({}) },
    { name: 'worker, bundling at start (WORKER_ROLE=all)', start: service({ WORKFLOW_BUNDLE_PATH: '' }) },
    { name: 'worker, prebuilt bundle (WORKER_ROLE=interactive)', start: service({ WORKER_ROLE: 'interactive' }) },
    { name: 'worker, prebuilt bundle (WORKER_ROLE=bulk)', start: service({ WORKER_ROLE: 'bulk' }) },
    {
      name: 'Temporal floor: bare SDK worker, prebuilt bundle',
      start: async () =>
        (
          await startEntryPoint('bench/floor/floor-worker-process.ts', {
            PATH: process.env.PATH,
            TEMPORAL_ADDRESS: stack.settings.temporalAddress,
            FLOOR_BUNDLE_PATH: floorBundlePath,
          }, 'worker running')
        ).child,
    },
  ];
}

async function main(context: BenchContext): Promise<number> {
  const loadAtStart = loadavg();
  progress(`ROUNDS=${ROUNDS} SETTLE_S=${SETTLE_S}`);
  const stack = await startStack(context, progress, { taskQueue: `bench-worker-${process.pid}` });
  const floorBundlePath = join(tmpdir(), `bench-floor-bundle-${process.pid}.js`);
  context.teardown.add('floor bundle file', () => rm(floorBundlePath, { force: true }));
  await writeWorkflowBundle(floorBundlePath, stack.settings.logger, floorWorkflowsPath);

  const all = variants(context, stack, floorBundlePath);
  const samples = new Map<string, Sample[]>(all.map((variant) => [variant.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of all) {
      context.signal.throwIfAborted();
      const sample = await measure(variant);
      samples.get(variant.name)!.push(sample);
      progress(`round ${round}/${ROUNDS}: ${variant.name}: started in ${fmt(sample.startMs, 0)} ms, ${fmt(sample.rssMiB, 0)} MiB resident, peak ${fmt(sample.peakMiB, 0)} MiB`);
    }
  }

  const median = (name: string, field: keyof Sample) => percentile(ascending(samples.get(name)!.map((sample) => sample[field])), 50);
  const [prebuilt, bundling, interactive, bulk, floor] = all.map((variant) => variant.name) as [string, string, string, string, string];
  out(`bench/worker  ROUNDS=${ROUNDS}  SETTLE_S=${SETTLE_S}  (medians; memory ${SETTLE_S} s after the ready line, idle)`);
  out();
  out('| Process | start ms | resident MiB | peak MiB |');
  out('|---|---|---|---|');
  for (const name of all.map((variant) => variant.name)) out(`| ${name} | ${fmt(median(name, 'startMs'), 0)} | ${fmt(median(name, 'rssMiB'), 0)} | ${fmt(median(name, 'peakMiB'), 0)} |`);
  out();
  const ratio = (a: string, b: string, field: keyof Sample) => median(a, field) / median(b, field);
  out(`  prebuilt / bundling at start   start ${fmt(ratio(prebuilt, bundling, 'startMs'), 2)}, resident ${fmt(ratio(prebuilt, bundling, 'rssMiB'), 2)}, peak ${fmt(ratio(prebuilt, bundling, 'peakMiB'), 2)}`);
  out(`  prebuilt / Temporal floor      start ${fmt(ratio(prebuilt, floor, 'startMs'), 2)}, resident ${fmt(ratio(prebuilt, floor, 'rssMiB'), 2)}, peak ${fmt(ratio(prebuilt, floor, 'peakMiB'), 2)}`);
  out();
  for (const line of await machineLines(stack.sql, loadAtStart)) out(line);
  out(
    JSON.stringify({
      bench: 'worker',
      unit: 'MiB',
      rounds: ROUNDS,
      service: median(prebuilt, 'peakMiB'),
      baseline: median(bundling, 'peakMiB'),
      floor: median(floor, 'peakMiB'),
      ratioToBaseline: ratio(prebuilt, bundling, 'peakMiB'),
      ratioToFloor: ratio(prebuilt, floor, 'peakMiB'),
      residentMiB: median(prebuilt, 'rssMiB'),
      baselineResidentMiB: median(bundling, 'rssMiB'),
      floorResidentMiB: median(floor, 'rssMiB'),
      startMs: median(prebuilt, 'startMs'),
      baselineStartMs: median(bundling, 'startMs'),
      floorStartMs: median(floor, 'startMs'),
      interactivePeakMiB: median(interactive, 'peakMiB'),
      bulkPeakMiB: median(bulk, 'peakMiB'),
    }),
  );
  return 0;
}

runBench(progress, main);
