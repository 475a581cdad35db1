/**
 * `npm run bench:abtest`: an A/B test on a segment of DEVICES (100,000) devices with the `log` push provider, through
 * the real API domain functions and a real worker process (`src/main/worker.ts`, as production runs it). It measures
 * the time from playTime to every A/B send recorded (the audience snapshot, then both arms sent page by page), the
 * sends per second against a bare batched INSERT of the same rows into a copy of `push_sends` (same machine, same
 * run), and the worker's peak memory (VmHWM of its process). Figures go to stdout, progress to stderr; the last
 * stdout line is one JSON object of the figures.
 *
 * Environment (all optional): DEVICES (100000), TEST_PERCENT (100: every device is in arm A or B, so every device is
 * sent to before the window), DATABASE_URL (a server to create a scratch database on; embedded PostgreSQL
 * otherwise), LOG_LEVEL for the service's own logs on stderr (warn).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { createAbTest } from '../src/domain/abtests/create-ab-test.ts';
import { scheduleAbTest, updateAbTest, validateAbTest } from '../src/domain/abtests/change-ab-test.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createApp } from '../src/domain/apps/create-app.ts';
import { createNotification } from '../src/domain/notifications/create-notification.ts';
import { createSegment } from '../src/domain/segments/create-segment.ts';
import { sampleMessage } from '../test/support/samples.ts';
import { positiveInt } from './support/env.ts';
import { machineLines } from './support/machine.ts';
import { processMemoryMiB } from './support/memory.ts';
import { runBench, startBenchWorkerProcess, startStack } from './support/stack.ts';
import { fmt } from './support/stats.ts';
import { measureTemporalFloor } from './support/temporal-floor.ts';

const DEVICES = positiveInt('DEVICES', 100_000);
const TEST_PERCENT = positiveInt('TEST_PERCENT', 100);
const taskQueue = `bench-abtest-${randomBytes(4).toString('hex')}`;
const progress = (message: string) => process.stderr.write(`[bench:abtest] ${message}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Peak resident memory of a process so far (Linux: VmHWM), in MiB. */
const peakRssMiB = async (pid: number) => (await processMemoryMiB(pid)).peakMiB;

runBench(progress, async (context) => {
  const loadAtStart = loadavg();
  const stack = await startStack(context, progress, { taskQueue });
  const { sql } = stack;
  const em = stack.workerOrm.em.fork();
  const worker = await startBenchWorkerProcess(context, stack, { PUSH_PROVIDER: 'log' });
  const idleRss = await peakRssMiB(worker.pid!);

  progress(`setting up ${DEVICES} devices`);
  const { account } = await createAccount(em, { name: 'bench' });
  const app = await createApp(em, account.id, { name: 'bench app' });
  await sql.query(
    `insert into devices (id, account_id, app_id, token, platform, client_user_id, attributes, subscribed, created_at, updated_at, last_seen_at)
     select gen_random_uuid(), $1, $2, 'token-' || n, (array['ios', 'android', 'web'])[1 + n % 3], 'user-' || n, jsonb_build_object('n', n), true, now(), now(), now()
       from generate_series(1, $3) as n`,
    [account.id, app.id, DEVICES],
  );
  await sql.query('analyze devices');
  const { segment } = await createSegment(em, account.id, { appId: app.id, name: 'everyone', rules: { all: [] } });
  const [messageA, messageB] = [
    await createNotification(em, account.id, { ...sampleMessage(app.id), title: 'A' }),
    await createNotification(em, account.id, { ...sampleMessage(app.id), title: 'B' }),
  ];
  const test = await createAbTest(em, account.id, { appId: app.id, abTestName: 'bench', filterId: segment.id, expiry: 60 });
  const deps = { em: stack.workerOrm.em.fork(), temporal: { client: stack.temporal.client, taskQueue } };
  const playTime = new Date(Date.now() + 3000);
  await updateAbTest(deps, account.id, test.id, {
    templateIdA: messageA.id,
    templateIdB: messageB.id,
    testPercent: TEST_PERCENT,
    playTime: { at: playTime, offsetMinutes: 0 },
  });
  await validateAbTest({ ...deps, em: stack.workerOrm.em.fork() }, account.id, test.id, app.id);
  await scheduleAbTest({ ...deps, em: stack.workerOrm.em.fork() }, account.id, test.id, app.id);
  progress(`scheduled at ${playTime.toISOString()}; waiting for every A/B send`);

  const expected = 2 * Math.max(1, Math.floor((DEVICES * TEST_PERCENT) / 200));
  let peak = idleRss;
  for (;;) {
    context.signal.throwIfAborted();
    peak = Math.max(peak, await peakRssMiB(worker.pid!));
    const { rows } = await sql.query<{ sent: string }>(`select count(*) as sent from push_sends where ab_test_id = $1 and arm in ('A', 'B') and status = 'sent'`, [test.id]);
    const sent = Number(rows[0]!.sent);
    if (sent >= expected) break;
    progress(`${sent} of ${expected} sends recorded`);
    await sleep(1000);
  }
  peak = Math.max(peak, await peakRssMiB(worker.pid!));
  const { rows: [times] } = await sql.query<{ started: Date; first: Date; last: Date; sends: string }>(
    `select t.started_at as started, min(s.created_at) as first, max(s.sent_at) as last, count(*) as sends
       from ab_tests t join push_sends s on s.ab_test_id = t.id where t.id = $1 and s.arm in ('A', 'B') group by t.started_at`,
    [test.id],
  );
  const playTimeToSentMs = times!.last.getTime() - playTime.getTime();
  const sendingMs = times!.last.getTime() - times!.first.getTime();
  const sends = Number(times!.sends);
  const servicePerSecond = sends / (playTimeToSentMs / 1000);

  progress('baseline: a bare batched INSERT of the same rows into a copy of push_sends');
  await sql.query('create table push_sends_baseline (like push_sends including all)');
  const { rows: members } = await sql.query<{ device_id: string; arm: string }>(`select device_id, arm from ab_test_members where ab_test_id = $1 and arm in ('A', 'B') order by device_id`, [test.id]);
  const baselineStart = performance.now();
  for (let offset = 0; offset < members.length; offset += 500) {
    const page = members.slice(offset, offset + 500);
    await sql.query(
      `insert into push_sends_baseline (id, account_id, source, ab_test_id, device_id, arm, notification_id, status, sent_at, created_at)
       select gen_random_uuid(), $1, 'abtest', $2, m.device_id, m.arm, case m.arm when 'A' then $3::uuid else $4::uuid end, 'sent', now(), now()
         from unnest($5::uuid[], $6::text[]) as m(device_id, arm)`,
      [account.id, test.id, messageA.id, messageB.id, page.map((row) => row.device_id), page.map((row) => row.arm)],
    );
  }
  const baselineMs = performance.now() - baselineStart;
  const baselinePerSecond = members.length / (baselineMs / 1000);

  progress('the Temporal floor: one workflow with one activity per unit, on the same server');
  const floor = await measureTemporalFloor({ address: stack.settings.temporalAddress, namespace: 'default', units: 300, concurrency: 16 });

  out(`bench:abtest — ${DEVICES} devices, testPercent ${TEST_PERCENT}, log push provider`);
  out();
  for (const line of await machineLines(sql, loadAtStart)) out(line);
  out(`  load average at end (1/5/15 min)      ${loadavg().map((value) => fmt(value, 2)).join(' / ')}`);
  out();
  out('Service (playTime → audience snapshot → arms A and B sent through the send engine, waves of the provider size, one activity per arm)');
  out(`  A/B sends recorded                    ${sends}`);
  out(`  playTime → run started (snapshot)     ${fmt(times!.started.getTime() - playTime.getTime(), 0)} ms`);
  out(`  playTime → all A/B sends recorded     ${fmt(playTimeToSentMs, 0)} ms`);
  out(`  first send row → last send recorded   ${fmt(sendingMs, 0)} ms`);
  out(`  sends/s (over playTime → last)        ${fmt(servicePerSecond, 0)}`);
  out(`  worker peak memory (VmHWM)            ${fmt(peak, 0)} MiB (idle after start: ${fmt(idleRss, 0)} MiB)`);
  out();
  out('Baseline (the same rows, batched 500 per INSERT … SELECT FROM unnest, one plain pg client)');
  out(`  rows/s                                ${fmt(baselinePerSecond, 0)}`);
  out();
  out('Temporal floor (one workflow with one activity per unit, 16 in flight, same server)');
  out(`  runs/s                                ${fmt(floor.perSecond, 1)}`);
  out();
  out(`Ratio (service sends/s ÷ baseline rows/s)  ${fmt(servicePerSecond / baselinePerSecond, 3)}`);
  out(`Ratio (service sends/s ÷ floor runs/s)     ${fmt(servicePerSecond / floor.perSecond, 1)}  (a send is not a run: an arm goes out in one activity)`);
  out(
    JSON.stringify({
      bench: 'abtest',
      unit: 'sends/s',
      devices: DEVICES,
      sends,
      playTimeToSentMs,
      service: Number(servicePerSecond.toFixed(1)),
      baseline: Number(baselinePerSecond.toFixed(1)),
      floor: Number(floor.perSecond.toFixed(1)),
      ratioToBaseline: Number((servicePerSecond / baselinePerSecond).toFixed(4)),
      ratioToFloor: Number((servicePerSecond / floor.perSecond).toFixed(2)),
      workerPeakRssMiB: Number(peak.toFixed(1)),
    }),
  );
  return 0;
});
