import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newAccount } from '../support/api.ts';
import { sineWav } from '../support/audio.ts';
import { createMessage, newAudience, scheduleSend, startFcmSendPath, waitForSend, type Caller, type FcmSendPath } from '../support/campaigns.ts';
import { readyFile } from '../support/files.ts';
import { ok } from '../support/http-assertions.ts';
import { sampleJob } from '../support/jobs.ts';

// The whole path of a recording, black-box, on a worker process of its own that sends to a fake FCM: a WAV upload is
// processed on that worker → submitted to the job → selected → accepted → the message's recording URL answers a
// Range request with MP4 audio → a campaign's pushes carry that URL.

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
    ok(await call('POST', `/job/executeJob?id=${job.id}`, as));

    // Processed on this path's worker: ready, its length within 5 %.
    const file = await readyFile(account, sineWav({ seconds: 5, sampleRate: 48_000, channels: 2 }), { fileName: 'take-1.wav', baseUrl: account.baseUrl });
    expect(Math.abs(file.durationMs - 5000)).toBeLessThanOrEqual(250);
    // Made under PUBLIC_URL (the suite's API, which shares this path's storage folder).
    expect(file.url.startsWith(`${inject('apiUrl')}/recordings/${file.fileId}/`)).toBe(true);

    const take = ok(await call('POST', `/job/recording?id=${job.id}`, { ...as, body: { fileId: file.fileId } }), 201);
    expect(take).toMatchObject({ fileId: file.fileId, status: 'ready', url: file.url, job: { status: 'SUBMITTED' } });
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
