import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeaweedFsServer } from '../../src/dev/seaweedfs-server.ts';
import { createStorage, type ObjectStorage } from '../../src/storage/index.ts';
import { call, newAccount } from '../support/api.ts';
import { settledTake, tokenOf, uploadTake } from '../support/artist-takes.ts';
import { sineWav } from '../support/audio.ts';
import { createMessage, newAudience, scheduleSend, startFakeFcmForWorkers, waitForSend, type Caller, type FakeFcmForWorkers } from '../support/campaigns.ts';
import { readyFile } from '../support/files.ts';
import { ok } from '../support/http-assertions.ts';
import { sampleJob } from '../support/jobs.ts';
import { killWorker, startApiProcess, startWorkerProcess } from '../support/instances.ts';
import { seaweedFsForThisFile, seaweedFsStartTimeoutMs } from '../support/seaweedfs.ts';

// The same path on the S3 driver, against a real S3-compatible server (SeaweedFS, which checks signatures and
// expiry): `npm run api` and `npm run worker` as production runs them, with STORAGE_DRIVER=s3 and credentials from the
// AWS SDK's environment variables. An upload streams into the bucket, the worker processes it from there, and the
// recording URL redirects to a fresh presigned GET of the delivery file. The worker sends to a fake FCM, for the whole
// path: the artist's take through their link, accepted, played through the bucket, carried by a campaign.

const seaweedFs = seaweedFsForThisFile();

describe('recordings on S3', () => {
  let server: SeaweedFsServer;
  let storage: ObjectStorage;
  let worker: ChildProcess | undefined;
  let api: { child: ChildProcess; url: string } | undefined;
  let fcm: FakeFcmForWorkers | undefined;
  beforeAll(async () => {
    fcm = await startFakeFcmForWorkers({ fake: { keepBodies: true } });
    server = await seaweedFs();
    const { s3 } = server;
    storage = createStorage({ driver: 's3', ...s3 });
    const taskQueue = `files-s3-${randomUUID()}`;
    const env: NodeJS.ProcessEnv = {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_BUCKET: s3.bucket,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    };
    [worker, api] = await Promise.all([startWorkerProcess(taskQueue, { ...env, ...fcm.env }), startApiProcess(taskQueue, env)]);
  }, seaweedFsStartTimeoutMs);
  afterAll(async () => {
    if (worker) await killWorker(worker);
    if (api) await killWorker(api.child);
    await fcm?.stop();
    await storage?.close();
  });

  it('uploads into the bucket, processes the file from there, and plays it through a presigned GET', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const file = await readyFile(account, sineWav({ seconds: 3, sampleRate: 44_100 }), { baseUrl: api!.url, fileName: 'take.wav' });
    expect(Math.abs(file.durationMs - 3000)).toBeLessThanOrEqual(150);
    expect(file.url.startsWith(`${api!.url}/recordings/${file.fileId}/`)).toBe(true);

    const stored: string[] = [];
    for await (const object of storage.list(`recordings/${account.accountId}/`)) stored.push(object.key);
    expect(stored.sort()).toEqual([`recordings/${account.accountId}/${file.fileId}/delivery.m4a`, `recordings/${account.accountId}/${file.fileId}/original`]);

    // The service redirects to the bucket; the presigned URL works without a key, and with a Range.
    const answer = await fetch(file.url, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const location = answer.headers.get('location')!;
    expect(location.startsWith(`${server.s3.endpoint}/${server.s3.bucket}/recordings/${account.accountId}/${file.fileId}/delivery.m4a?`)).toBe(true);
    expect(location).toContain('X-Amz-Signature=');
    const whole = await fetch(location);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/mp4');
    const bytes = Buffer.from(await whole.arrayBuffer());
    expect(bytes.subarray(4, 12).toString('latin1')).toBe('ftypM4A ');
    const range = await fetch(location, { headers: { range: 'bytes=0-99' } });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(0, 100))).toBe(true);
    // The bucket checks the signature: one that is not its own is refused.
    expect((await fetch(location.replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${'0'.repeat(64)}`))).status).toBe(403);
  });

  it('takes the artist’s upload through the link into the bucket; the accepted take plays through it and a campaign carries its URL', { timeout: 120_000 }, async () => {
    const account: Caller = { ...(await newAccount()), baseUrl: api!.url };
    const as = { token: account.apiKey, baseUrl: api!.url };
    const { segment, tokens } = await newAudience(account, 2, 'listeners');
    const message = await createMessage(account, { type: 'RICHPUSH', filterId: segment.id });
    const job = ok(await call('POST', '/job/create', { ...as, body: sampleJob(account, message.id) }), 201);
    const token = tokenOf(ok(await call('POST', `/job/executeJob?id=${job.id}`, as)).artistLink);

    const uploaded = ok(await uploadTake(token, sineWav({ seconds: 4, sampleRate: 48_000, channels: 2 }), { fileName: 'take.wav', baseUrl: api!.url }), 202);
    const take = await settledTake(token, uploaded.fileId, { baseUrl: api!.url });
    expect(take.status).toBe('ready');
    expect(Math.abs(take.durationMs - 4000)).toBeLessThanOrEqual(200);
    const stored: string[] = [];
    for await (const object of storage.list(`recordings/${account.accountId}/${take.fileId}/`)) stored.push(object.key);
    expect(stored.sort()).toEqual([`recordings/${account.accountId}/${take.fileId}/delivery.m4a`, `recordings/${account.accountId}/${take.fileId}/original`]);

    ok(await call('POST', `/richPush/select?file_id=${take.fileId}`, as));
    ok(await call('POST', `/job/accept?id=${job.id}`, as));
    const ready = ok(await call('GET', `/notification/get?id=${message.id}`, as));
    expect(ready).toMatchObject({ status: 'READY', recording: { fileId: take.fileId, url: take.url, contentType: 'audio/mp4' } });

    // A device follows the redirect to the bucket and reads a range: MPEG-4 audio.
    const played = await fetch(ready.recording.url, { headers: { range: 'bytes=0-4095' } });
    expect(played.status).toBe(206);
    expect(played.url).toContain('X-Amz-Signature=');
    expect(played.headers.get('content-type')).toBe('audio/mp4');
    const bytes = Buffer.from(await played.arrayBuffer());
    expect(bytes).toHaveLength(4096);
    expect(bytes.subarray(4, 12).toString('latin1')).toBe('ftypM4A ');

    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));
    expect(await waitForSend(account, message.id, (send) => send.state === 'SENT')).toMatchObject({ audience: 2, sent: 2, failed: 0 });
    const pushes = fcm!.fake.bodies().filter((body) => tokens.includes(body.token));
    expect(pushes.map((push) => push.token).sort()).toEqual([...tokens].sort());
    for (const push of pushes) expect(push.message.data).toMatchObject({ notificationId: message.id, recordingUrl: take.url });
  });
});
