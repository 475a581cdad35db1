/**
 * `npm run bench:recordings`: recording files through the whole service, against the same work done bare.
 *
 * 1. Upload: N uploads of one WAV (SECONDS long, 48 kHz stereo, 16-bit), CONCURRENCY in flight, streamed from disk as
 *    raw bodies to POST /file/upload of an API in a process of its own (local storage driver). MB/s over first request
 *    → last 202, and the API's resident memory (VmRSS sampled every 20 ms, and VmHWM) above what it held before.
 *    Baseline: the same bytes, the same number of writes at the same concurrency, written through the storage driver
 *    directly from this process (half before the uploads, half after, as the machine is shared).
 * 2. Processing: the worker (a process of its own) is started once every upload is in, so that neither phase loads
 *    the other; it takes the N queued runs, processingSlots (= cores) at a time. Per file: the first processing
 *    activity scheduled (the fresh worker's first workflow tasks, its sandbox starting, are reported apart) → its run
 *    completed (checked, normalised, stored, row `ready`), from the runs' histories. Baseline: the same N files handed
 *    at once to `processRecording` (the very ffmpeg commands the activity runs: probe, loudnorm measure, loudnorm +
 *    AAC encode, read-back) on as many slots, with no Temporal, Postgres or storage: handed over → done; run before
 *    and after the service's processing, and the two medians averaged.
 *
 * Figures go to stdout (the last line is one JSON object), progress to stderr. Environment (all optional): N (20),
 * CONCURRENCY (4), SECONDS (60), SETTLE_TIMEOUT_S (900), DATABASE_URL (a server to create a scratch database on;
 * embedded PostgreSQL otherwise), LOG_LEVEL for the service's own logs on stderr (warn).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordingConfigDefaults } from '../src/config.ts';
import { provisionFfmpeg } from '../src/dev/ffmpeg-tool.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createApp } from '../src/domain/apps/create-app.ts';
import { processRecording, recordingLimitsOf, type Ffmpeg } from '../src/media/index.ts';
import { createStorage, localStorageRoot, objectKey, type ObjectStorage } from '../src/storage/index.ts';
import { fileWorkflowId } from '../workflows/process-file.contract.ts';
import { sineWav } from '../test/support/audio.ts';
import { positiveInt } from './support/env.ts';
import { epochMs } from './support/job-history.ts';
import { machineLines } from './support/machine.ts';
import { sampleRssPeak } from './support/memory.ts';
import { runBench, startBenchApiProcess, startBenchWorkerProcess, startStack, type BenchContext, type Stack } from './support/stack.ts';
import { ascending, fmt, percentile, runBounded } from './support/stats.ts';

const N = positiveInt('N', 20);
const CONCURRENCY = positiveInt('CONCURRENCY', 4);
const SECONDS = positiveInt('SECONDS', 60, 2);
const SETTLE_TIMEOUT_MS = positiveInt('SETTLE_TIMEOUT_S', 900) * 1000;
/** As many files at once as the worker processes (its processingSlots, src/service/compose.ts). */
const PROCESSING_SLOTS = availableParallelism();
const limits = recordingLimitsOf(recordingConfigDefaults);
const runTag = randomBytes(4).toString('hex');

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (message: string) => process.stderr.write(`[bench:recordings] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const p50 = (values: number[]) => percentile(ascending(values), 50);
const mbPerSecond = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

interface Upload {
  status: number;
  fileId: string | undefined;
}

/** One upload as a client sends a file: streamed from disk as the raw body, with its length and audio type. */
function uploadFile(agent: Agent, url: string, apiKey: string, wavPath: string, sizeBytes: number): Promise<Upload> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'audio/wav', 'content-length': String(sizeBytes) };
    const outgoing = request(url, { method: 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { fileId?: string };
        resolve({ status: res.statusCode ?? 0, fileId: body.fileId });
      });
    });
    outgoing.once('error', reject);
    createReadStream(wavPath).once('error', reject).pipe(outgoing);
  });
}

/** `count` writes of the file through the driver, CONCURRENCY at a time; answers the wall time in ms. */
async function writeDirectly(storage: ObjectStorage, wavPath: string, count: number, phase: string): Promise<number> {
  const started = now();
  await runBounded(count, CONCURRENCY, async (index) => {
    await storage.write(objectKey('bench', runTag, `${phase}-${index}`), createReadStream(wavPath), { maxBytes: limits.maxBytes, contentType: 'application/octet-stream' });
  });
  const wallMs = now() - started;
  await runBounded(count, CONCURRENCY, (index) => storage.delete(objectKey('bench', runTag, `${phase}-${index}`)));
  return wallMs;
}

/** Waits until none of the files is `processing`; answers the count by status. */
async function waitForOutcomes(stack: Stack, fileIds: string[], signal: AbortSignal): Promise<Map<string, number>> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let lastReport = 0;
  for (;;) {
    signal.throwIfAborted();
    const { rows } = await stack.sql.query<{ status: string; n: string }>('select status, count(*) as n from files where id = any($1) group by status', [fileIds]);
    const counts = new Map(rows.map((row) => [row.status, Number(row.n)]));
    if (!counts.has('processing')) return counts;
    if (Date.now() > deadline) throw new Error(`files still processing after ${SETTLE_TIMEOUT_MS / 1000} s: ${JSON.stringify([...counts])}`);
    if (Date.now() - lastReport > 5000) {
      progress(`processing: ${fileIds.length - counts.get('processing')!}/${fileIds.length} decided`);
      lastReport = Date.now();
    }
    await sleep(250);
  }
}

/**
 * From each file's run history: when the worker scheduled the first of the processing activities (its workflow code had
 * run by then), each run's completion after that, and how long the fresh worker's first workflow tasks took (once per
 * worker process: its workflow sandbox starting), which is not a cost per file and is reported apart.
 */
async function serviceLatencies(stack: Stack, fileIds: string[]): Promise<{ latenciesMs: number[]; wallMs: number; coldStartMs: number }> {
  const spans = await Promise.all(
    fileIds.map(async (fileId) => {
      const events = (await stack.temporal.client.workflow.getHandle(fileWorkflowId(fileId)).fetchHistory()).events ?? [];
      const at = (has: (event: (typeof events)[number]) => unknown) => epochMs(events.find(has)?.eventTime);
      return {
        firstTaskAt: at((event) => event.workflowTaskStartedEventAttributes),
        scheduledAt: at((event) => event.activityTaskScheduledEventAttributes),
        completedAt: at((event) => event.workflowExecutionCompletedEventAttributes),
      };
    }),
  );
  const start = Math.min(...spans.map((span) => span.scheduledAt));
  const latenciesMs = spans.map((span) => span.completedAt - start);
  return { latenciesMs, wallMs: Math.max(...latenciesMs), coldStartMs: start - Math.min(...spans.map((span) => span.firstTaskAt)) };
}

/** The same files handed at once to processRecording, PROCESSING_SLOTS at a time: handed over → done, and each run alone. */
async function ffmpegBaseline(ffmpeg: Ffmpeg, wavPath: string, workDir: string): Promise<{ latenciesMs: number[]; runMs: number[]; wallMs: number }> {
  const latenciesMs: number[] = [];
  const runMs: number[] = [];
  const handedOver = now();
  await runBounded(N, PROCESSING_SLOTS, async (index) => {
    const started = now();
    const outputPath = join(workDir, `delivery-${index}.m4a`);
    const outcome = await processRecording(ffmpeg, wavPath, { outputPath, declaredType: 'audio/wav', limits });
    if (!outcome.accepted) throw new Error(`the baseline rejected the file: ${outcome.reason} ${outcome.detail}`);
    latenciesMs.push(now() - handedOver);
    runMs.push(now() - started);
    await rm(outputPath, { force: true });
  });
  return { latenciesMs, runMs, wallMs: now() - handedOver };
}

/** Files that are not `ready`, and copies: rows beyond the uploads', delivery objects beyond one per ready file. */
async function countLosses(stack: Stack, storage: ObjectStorage, accountId: string, uploads: Upload[], statuses: Map<string, number>) {
  const ready = statuses.get('ready') ?? 0;
  const { rows } = await stack.sql.query<{ n: string }>('select count(*) as n from files where account_id = $1', [accountId]);
  let deliveryObjects = 0;
  for await (const { key } of storage.list(`recordings/${accountId}/`)) if (key.endsWith('/delivery.m4a')) deliveryObjects += 1;
  const accepted = uploads.filter((upload) => upload.status === 202).length;
  return { lost: N - ready, duplicates: Number(rows[0]!.n) - accepted + Math.max(0, deliveryObjects - ready), deliveryObjects };
}

async function main(context: BenchContext): Promise<number> {
  const { signal, teardown } = context;
  const loadAtStart = loadavg();
  progress(`N=${N} CONCURRENCY=${CONCURRENCY} SECONDS=${SECONDS} processing slots=${PROCESSING_SLOTS}`);
  const ffmpeg = await provisionFfmpeg(progress);
  const workDir = await mkdtemp(join(tmpdir(), 'bench-recordings-'));
  teardown.add('scratch folder', () => rm(workDir, { recursive: true, force: true }));
  const wavPath = join(workDir, 'take.wav');
  const wav = sineWav({ seconds: SECONDS, sampleRate: 48_000, channels: 2, peakDbfs: -12 });
  await writeFile(wavPath, wav);
  const sizeBytes = wav.length;

  const stack = await startStack(context, progress, { taskQueue: `bench-recordings-${runTag}` });
  const dataDir = join(workDir, 'data');
  const filesEnv = { DATA_DIR: dataDir, STORAGE_DRIVER: 'local', FFMPEG_PATH: ffmpeg.path };
  const storage = createStorage({ driver: 'local', root: localStorageRoot(dataDir) });
  teardown.add('storage driver', () => storage.close());
  const em = () => stack.workerOrm.em.fork();
  const { account, apiKey } = await createAccount(em(), { name: 'bench-recordings' });
  const app = await createApp(em(), account.id, { name: 'bench app' });
  const api = await startBenchApiProcess(context, stack, filesEnv);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  teardown.add('upload agent', async () => agent.destroy());
  // One call first, so that the API's pools are connected before anything is timed.
  await fetch(`${api.url}/file/get?id=fil_none`, { headers: { authorization: `Bearer ${apiKey}` } });

  // --- Upload, with the driver's own writes around it ---------------------------------------------------------------
  progress(`storage baseline: ${Math.ceil(N / 2)} writes of ${sizeBytes} bytes`);
  const baselineBeforeMs = await writeDirectly(storage, wavPath, Math.ceil(N / 2), 'before');
  progress(`uploading ${N} files, ${CONCURRENCY} in flight`);
  const rss = await sampleRssPeak(api.pid);
  const uploadUrl = `${api.url}/file/upload?appId=${app.id}&fileName=take.wav`;
  const uploads: Upload[] = [];
  const uploadStarted = now();
  await runBounded(N, CONCURRENCY, async () => {
    uploads.push(await uploadFile(agent, uploadUrl, apiKey, wavPath, sizeBytes));
  });
  const uploadMs = now() - uploadStarted;
  const apiPeakMiB = await rss.peakMiB();
  progress(`storage baseline: ${Math.floor(N / 2)} more writes`);
  const baselineAfterMs = await writeDirectly(storage, wavPath, Math.floor(N / 2), 'after');
  const fileIds = uploads.flatMap((upload) => (upload.status === 202 && upload.fileId ? [upload.fileId] : []));
  if (fileIds.length < N) progress(`${N - fileIds.length} uploads were refused: ${uploads.map((upload) => upload.status).join(' ')}`);

  // --- Processing, between two runs of the same ffmpeg work bare ---------------------------------------------------
  progress(`ffmpeg baseline: ${N} files, ${PROCESSING_SLOTS} at a time`);
  const bareBefore = await ffmpegBaseline(ffmpeg, wavPath, workDir);
  progress('starting the worker');
  await startBenchWorkerProcess(context, stack, filesEnv);
  const statuses = await waitForOutcomes(stack, fileIds, signal);
  const service = await serviceLatencies(stack, fileIds);
  progress(`ffmpeg baseline again: ${N} files, ${PROCESSING_SLOTS} at a time`);
  const bareAfter = await ffmpegBaseline(ffmpeg, wavPath, workDir);
  const losses = await countLosses(stack, storage, account.id, uploads, statuses);

  const upload = { sizeBytes, uploadMs, accepted: fileIds.length, baselineBeforeMs, baselineAfterMs, rssStartMiB: rss.startMiB, apiPeakMiB };
  const machine = await machineLines(stack.sql, loadAtStart);
  report(machine, upload, { service, bare: [bareBefore, bareAfter], statuses, ...losses });
  return losses.lost === 0 && losses.duplicates === 0 ? 0 : 1;
}

type UploadFigures = { sizeBytes: number; uploadMs: number; accepted: number; baselineBeforeMs: number; baselineAfterMs: number; rssStartMiB: number; apiPeakMiB: number };
type Baseline = Awaited<ReturnType<typeof ffmpegBaseline>>;
type ProcessFigures = {
  service: Awaited<ReturnType<typeof serviceLatencies>>;
  bare: Baseline[];
  statuses: Map<string, number>;
  lost: number;
  duplicates: number;
  deliveryObjects: number;
};

function report(machine: string[], upload: UploadFigures, processing: ProcessFigures): void {
  const { sizeBytes, uploadMs, baselineBeforeMs, baselineAfterMs } = upload;
  const { service, bare, statuses, lost, duplicates } = processing;
  const uploadMBps = mbPerSecond(N * sizeBytes, uploadMs);
  const storageBaselineMBps = mbPerSecond(N * sizeBytes, baselineBeforeMs + baselineAfterMs);
  const processSecondsP50 = p50(service.latenciesMs) / 1000;
  // The mean of the two runs' medians: one before the service's processing, one after, as the machine is shared.
  const bareP50s = bare.map((run) => p50(run.latenciesMs) / 1000);
  const ffmpegBaselineSecondsP50 = bareP50s.reduce((sum, value) => sum + value, 0) / bareP50s.length;
  const apiPeakRssGrowthMiB = upload.apiPeakMiB - upload.rssStartMiB;
  const round = (value: number, digits: number) => Number(value.toFixed(digits));

  out(`bench/recordings  N=${N}  CONCURRENCY=${CONCURRENCY}  a ${SECONDS} s 48 kHz stereo WAV of ${fmt(sizeBytes / 1e6, 2)} MB  processing slots ${PROCESSING_SLOTS}`);
  out();
  for (const line of machine) out(line);
  out(`  load average at end (1/5/15 min)      ${loadavg().map((value) => fmt(value, 2)).join(' / ')}`);
  out();
  out('Upload (POST /file/upload, raw body streamed to the local driver; an API process of its own; the worker not yet started)');
  out(`  service                 ${fmt(uploadMBps, 1)} MB/s   (${N} files in ${fmt(uploadMs / 1000, 2)} s; ${upload.accepted} answered 202)`);
  out(`  baseline (driver)       ${fmt(storageBaselineMBps, 1)} MB/s   (before / after: ${fmt(mbPerSecond(Math.ceil(N / 2) * sizeBytes, baselineBeforeMs), 1)} / ${fmt(mbPerSecond(Math.floor(N / 2) * sizeBytes, baselineAfterMs), 1)} MB/s)`);
  out(`  ratio                   ${fmt(uploadMBps / storageBaselineMBps, 2)}   (goal: >= 0.5)`);
  out(`  API resident memory     ${fmt(upload.rssStartMiB, 0)} MiB before, peak ${fmt(upload.apiPeakMiB, 0)} MiB: +${fmt(apiPeakRssGrowthMiB, 1)} MiB   (goal: <= 64)`);
  out();
  out(`Processing (${N} files queued, ${PROCESSING_SLOTS} at a time; the baseline is processRecording bare, before and after the service)`);
  out(`  service p50 / all       ${fmt(processSecondsP50, 2)} s / ${fmt(service.wallMs / 1000, 2)} s   (first activity scheduled -> run completed, file ready)`);
  out(`  worker's first tasks    ${fmt(service.coldStartMs / 1000, 2)} s before that   (its workflow sandbox starting; once per worker process)`);
  for (const [index, run] of bare.entries()) {
    const solo = p50(run.runMs) / 1000;
    out(`  baseline ${index === 0 ? 'before' : 'after '} p50 / all ${fmt(bareP50s[index]!, 2)} s / ${fmt(run.wallMs / 1000, 2)} s   (handed over -> done; one file's run p50 ${fmt(solo, 2)} s)`);
  }
  out(`  ratio                   ${fmt(processSecondsP50 / ffmpegBaselineSecondsP50, 2)}   (goal: <= 1.3)`);
  out(`  outcomes                ${[...statuses].map(([status, count]) => `${count} ${status}`).join(', ')}; ${processing.deliveryObjects} delivery files stored; lost ${lost}, duplicates ${duplicates}`);
  out();
  out(
    JSON.stringify({
      bench: 'recordings',
      files: N,
      concurrency: CONCURRENCY,
      fileMB: round(sizeBytes / 1e6, 2),
      uploadMBps: round(uploadMBps, 1),
      storageBaselineMBps: round(storageBaselineMBps, 1),
      uploadRatio: round(uploadMBps / storageBaselineMBps, 2),
      processSecondsP50: round(processSecondsP50, 2),
      ffmpegBaselineSecondsP50: round(ffmpegBaselineSecondsP50, 2),
      processRatio: round(processSecondsP50 / ffmpegBaselineSecondsP50, 2),
      apiPeakRssGrowthMiB: round(apiPeakRssGrowthMiB, 1),
      lost,
      duplicates,
    }),
  );
}

runBench(progress, main);
