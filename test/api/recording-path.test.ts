import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';
import { sineWav } from '../support/audio.ts';
import { createMessage, newAudience, scheduleSend, startFcmSendPath, waitForSend, type Caller, type FcmSendPath } from '../support/campaigns.ts';
import { settledTake, tokenOf, uploadTake } from '../support/artist-takes.ts';
import { ok } from '../support/http-assertions.ts';
import { sampleJob } from '../support/jobs.ts';

// The whole path of a recording, black-box, on a worker process of its own that sends to a fake FCM: the artist uploads
// a WAV through their link (no key) → it is the job's take, processed on that worker → the account selects and accepts
// it → the message's recording URL answers a Range request with MP4 audio → a campaign's pushes carry that URL.

describe('a recording from upload to the devices', () => {
  let path: FcmSendPath;
  beforeAll(async () => {
    path = await startFcmSendPath({ fake: { keepBodies: true } });
  }, 60_000);
  afterAll(() => path?.stop());

  it('plays the accepted take at its recording URL, and every push of the campaign carries that URL', { timeout: 120_000 }, async () => {
    const account: Caller = path.via(await newAccount());
    const as = { token: account.apiKey, baseUrl: account.baseUrl };
    const { segment, tokens, platformOf } = await newAudience(account, 4, 'listeners');
    const message = await createMessage(account, { type: 'RICHPUSH', filterId: segment.id });
    const job = ok(await call('POST', '/job/create', { ...as, body: sampleJob(account, message.id) }), 201);
    const token = tokenOf(ok(await call('POST', `/job/executeJob?id=${job.id}`, as)).artistLink);

    // The artist uploads through their link, with no key; the take is processed on this path's worker: ready, its
    // length within 5 %.
    const uploaded = ok(await uploadTake(token, sineWav({ seconds: 5, sampleRate: 48_000, channels: 2 }), { fileName: 'take-1.wav', baseUrl: account.baseUrl }), 202);
    expect(ok(await call('GET', `/job/get?id=${job.id}`, as))).toMatchObject({ status: 'SUBMITTED', recordings: [{ fileId: uploaded.fileId }] });
    const take = await settledTake(token, uploaded.fileId, { baseUrl: account.baseUrl });
    expect(take).toMatchObject({ status: 'ready', fileName: 'take-1.wav' });
    expect(Math.abs(take.durationMs - 5000)).toBeLessThanOrEqual(250);
    const file = ok(await call('GET', `/file/get?id=${take.fileId}`, as));
    expect(file).toMatchObject({ jobId: job.id, status: 'ready', durationMs: take.durationMs, url: take.url });
    // Made under PUBLIC_URL (the suite's API, which shares this path's storage folder).
    expect(file.url.startsWith(`${inject('apiUrl')}/recordings/${file.fileId}/`)).toBe(true);

    // The account selects and accepts it.
    ok(await call('POST', `/richPush/select?file_id=${file.fileId}`, as));
    expect(ok(await call('POST', `/job/accept?id=${job.id}`, as))).toMatchObject({ status: 'ACCEPTED', selectedFileId: file.fileId });

    const ready = ok(await call('GET', `/notification/get?id=${message.id}`, as));
    expect(ready).toMatchObject({ status: 'READY', recording: { fileId: file.fileId, url: file.url, durationMs: file.durationMs, contentType: 'audio/mp4' } });

    // A device fetches it without a key, a range at a time: MPEG-4 audio, AAC.
    const head = await fetch(ready.recording.url, { headers: { range: 'bytes=0-4095' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-type')).toBe('audio/mp4');
    expect(head.headers.get('content-range')).toMatch(/^bytes 0-4095\/\d+$/);
    const bytes = Buffer.from(await head.arrayBuffer());
    expect(bytes).toHaveLength(4096);
    expect(bytes.subarray(4, 12).toString('latin1')).toBe('ftypM4A ');
    expect(bytes.includes(Buffer.from('mp4a'))).toBe(true);

    ok(await scheduleSend(account, message.id, { playTime: Date.now() }));
    const sent = await waitForSend(account, message.id, (send) => send.state === 'SENT');
    expect(sent).toMatchObject({ audience: 4, sent: 4, failed: 0 });
    const pushes = path.fake.bodies().filter((body) => tokens.includes(body.token));
    expect(pushes.map((push) => push.token).sort()).toEqual([...tokens].sort());
    for (const { token, message: pushed } of pushes) {
      expect(pushed.data).toMatchObject({ notificationId: message.id, type: 'RICHPUSH', recordingUrl: file.url });
      // iOS wakes the app's notification service extension, which attaches the recording from that URL.
      if (platformOf.get(token) === 'ios') expect(pushed.apns?.payload.aps['mutable-content']).toBe(1);
    }
  });
});
