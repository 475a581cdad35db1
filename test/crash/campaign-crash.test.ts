import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignSendWorkflowId, type CampaignSendWorkflow } from '../../workflows/campaign-send.contract.ts';
import { newAccount } from '../support/api.ts';
import { createMessage, getMessage, newAudience, pushStatusCounts, scheduleSend, startFcmSendPath, type FcmSendPath } from '../support/campaigns.ts';
import { query } from '../support/db.ts';
import { ok } from '../support/http-assertions.ts';
import { killWorker } from '../support/instances.ts';
import { temporalClient } from '../support/temporal.ts';
import { until } from '../support/wait.ts';

// A campaign send whose worker is killed (SIGKILL) in the middle of a wave, to the fake FCM, which answers at once and
// counts a push as accepted when it answers it. The send engine claims a wave (the shard's cursor moves) before it
// sends it, so a push is sent at most once: the wave in flight at the kill has no rows, and the next attempt writes it
// `unconfirmed` without sending it again (src/domain/campaigns/campaign-shard-source.ts).

const waveSize = 50;
const audience = 5000;

let temporal: Awaited<ReturnType<typeof temporalClient>>;
let path: FcmSendPath;
beforeAll(async () => {
  temporal = await temporalClient();
  path = await startFcmSendPath({ fake: { keepBodies: true }, workerEnv: { FCM_CONCURRENCY: String(waveSize) } });
});
afterAll(async () => {
  await path?.stop();
  await temporal?.close();
});

describe('a campaign send survives a worker crash', () => {
  it('ends SENT after its worker is killed mid-wave, each device pushed exactly once, the wave in flight unconfirmed', { timeout: 120_000 }, async () => {
    const account = path.via(await newAccount());
    const { segment, tokens } = await newAudience(account, audience, 'crash');
    const message = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    // Killed in the middle of the 21st wave: the fake answers the first half of that wave at once and holds the answers
    // to the second half for 10 s, and the kill goes out once every push of the wave has been received. The worker
    // cannot have stored the wave's outcome (half of it is unanswered), and every device of the wave got its push once.
    // (Waiting for the fake's 26th answer of the wave instead let the kill go out, under load, before the rest of the
    // wave was on the wire: those devices then rightly got nothing, but not the once this test holds the send to.)
    const wave = 20;
    const heldFrom = wave * waveSize + waveSize / 2;
    path.fake.answer((send) => (send.index >= heldFrom && send.index < (wave + 1) * waveSize ? { status: 200, delayMs: 10_000 } : undefined));
    const killed = until('the 21st wave on the wire, half of it answered', () => path.fake.received(), (received) => received >= (wave + 1) * waveSize, {
      timeoutMs: 60_000,
      intervalMs: 5,
    }).then(async () => {
      await killWorker(path.worker);
      return { accepted: path.fake.accepted(), received: path.fake.received() };
    });

    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));
    const atKill = await killed;
    await path.startWorker();
    // The next attempt of the shard starts once the server has given up on the dead one (its heartbeat timeout).
    const run = await temporal.client.workflow.getHandle<CampaignSendWorkflow>(campaignSendWorkflowId(message.id)).result();

    const statuses = await pushStatusCounts(message.id);
    // What reached FCM, per token: the held half of the wave in flight did, though its answers went to a dead worker.
    const receivedFor = new Map<string, number>();
    for (const send of path.fake.bodies()) receivedFor.set(send.token, (receivedFor.get(send.token) ?? 0) + 1);
    const missing = tokens.filter((token) => !receivedFor.has(token));
    const twice = [...receivedFor].filter(([, count]) => count > 1).map(([token]) => token);
    const seen = { atKill, statuses, missing: missing.length, twice: twice.length, accepted: path.fake.accepted() };
    expect(run.state, JSON.stringify(seen)).toBe('SENT');
    // Exactly once at the fake: every token, none twice.
    expect(twice, JSON.stringify(seen)).toEqual([]);
    expect(missing, JSON.stringify(seen)).toEqual([]);
    expect(path.fake.duplicates()).toBe(0);
    expect(path.fake.accepted()).toBe(audience - waveSize / 2);
    // Every push ended sent but the wave in flight at the kill: unconfirmed, and never sent again.
    expect(statuses, JSON.stringify(seen)).toEqual({ sent: audience - waveSize, unconfirmed: waveSize });
    // Each row, the unconfirmed ones too, has the send id its push went out with: a click on any of them counts.
    const sendIdAtFake = new Map(path.fake.bodies().map((send) => [send.token, send.message.data?.sendId]));
    const rows = await query<{ id: string; token: string }>(
      `select s.id, d.token from push_sends s join devices d on d.id = s.device_id where s.notification_id = $1 and s.source = 'campaign'`,
      [message.id],
    );
    expect(rows.filter((row) => sendIdAtFake.get(row.token) !== row.id)).toEqual([]);
    expect((await getMessage(account, message.id)).send).toMatchObject({ state: 'SENT', audience, sent: statuses.sent, failed: statuses.unconfirmed, unregistered: 0 });
  });
});
