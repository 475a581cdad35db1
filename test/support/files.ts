import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { inject } from 'vitest';
import { call, type ApiResponse, type TestAccount } from './api.ts';
import { sineWav, wavHeader } from './audio.ts';
import { query } from './db.ts';
import { until } from './wait.ts';

/** A take the tests can afford to process many times: 1.5 s of a sine, mono, 22.05 kHz. */
export const shortTake = () => sineWav({ seconds: 1.5, sampleRate: 22_050, peakDbfs: -18 });

export interface UploadOptions {
  fileName?: string;
  /** `audio/wav` by default; null sends no Content-Type. */
  contentType?: string | null;
  appId?: string;
  baseUrl?: string;
}

/** POST /file/upload with the bytes as the body, as a client would send a file. */
export function uploadFile(account: TestAccount, bytes: Buffer, options: UploadOptions = {}): Promise<ApiResponse> {
  const query = new URLSearchParams({ appId: options.appId ?? account.appId, ...(options.fileName === undefined ? {} : { fileName: options.fileName }) });
  const contentType = options.contentType === undefined ? 'audio/wav' : options.contentType;
  return call('POST', `/file/upload?${query.toString()}`, {
    token: account.apiKey,
    rawBody: bytes,
    headers: contentType === null ? {} : { 'content-type': contentType },
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
  });
}

/** The file once its processing has decided it (`ready` or `rejected`), as GET /file/get answers it. */
export async function settledFile(account: TestAccount, fileId: string, options: { timeoutMs?: number; baseUrl?: string } = {}): Promise<any> {
  const read = async () => (await call('GET', `/file/get?id=${fileId}`, { token: account.apiKey, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}) })).body;
  return until(`file ${fileId} processed`, read, (file) => file?.status === 'ready' || file?.status === 'rejected', { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 200 });
}

/** An uploaded file, processed and ready. */
export async function readyFile(account: TestAccount, bytes: Buffer = shortTake(), options: UploadOptions = {}): Promise<any> {
  const uploaded = await uploadFile(account, bytes, options);
  if (uploaded.status !== 202) throw new Error(`upload failed: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
  const file = await settledFile(account, uploaded.body.fileId, options);
  if (file.status !== 'ready') throw new Error(`the upload was ${file.status}: ${file.reason} ${file.detail}`);
  return file;
}

/** A ready file submitted to the job as a take (POST /job/recording { fileId }): answers the take and the job. */
export async function readyTake(account: TestAccount, jobId: string, bytes?: Buffer): Promise<any> {
  const file = await readyFile(account, bytes);
  const submitted = await call('POST', `/job/recording?id=${jobId}`, { token: account.apiKey, body: { fileId: file.fileId } });
  if (submitted.status !== 201) throw new Error(`submit failed: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return submitted.body;
}

/**
 * A file row written straight into the database, as processing would leave it, for tests of the job's steps that
 * need a take and not its audio: `ready` (with a delivery key nothing is stored at) unless told otherwise; `submitted`
 * makes it a take of `jobId` as a SUBMITTED step would (the job's run does not know of it).
 */
export async function fileRow(
  account: TestAccount,
  fields: { status?: 'processing' | 'ready' | 'rejected'; jobId?: string | null; submitted?: boolean } = {},
): Promise<{ fileId: string; url: string }> {
  const fileId = `fil_${randomBytes(16).toString('base64url')}`;
  const status = fields.status ?? 'ready';
  const url = `https://push.example.com/recordings/${fileId}/${'a'.repeat(32)}.m4a`;
  await query(
    `insert into files (id, account_id, app_id, job_id, source, status, reason, detail, file_name, duration_ms, content_type, original_key, delivery_key, url, created_at, processed_at, submission_id, submitted_at)
     values ($1, $2, $3, $4, 'upload', $5, $6, $7, 'take.wav', $8, $9, $10, $11, $12, now(), now(), $13, case when $13::uuid is null then null else now() end)`,
    [
      fileId,
      account.accountId,
      account.appId,
      fields.jobId ?? null,
      status,
      status === 'rejected' ? 'silent' : null,
      status === 'rejected' ? 'Its peak is digital silence, under -60 dBFS.' : null,
      status === 'ready' ? 1500 : null,
      status === 'ready' ? 'audio/mp4' : null,
      `recordings/${account.accountId}/${fileId}/original`,
      status === 'ready' ? `recordings/${account.accountId}/${fileId}/delivery.m4a` : null,
      url,
      fields.submitted ? randomUUID() : null,
    ],
  );
  return { fileId, url };
}

/** Where a streamed upload goes: a path of the API and the headers that authorise it. */
export interface UploadTarget {
  path: string;
  headers: Record<string, string>;
}

/** POST /file/upload with the account's key. */
export const accountUpload = (account: TestAccount): UploadTarget => ({ path: `/file/upload?appId=${account.appId}`, headers: { authorization: `Bearer ${account.apiKey}` } });

/** Streams `total` bytes to an upload route with node:http, as a client sending a large file does; stops once answered. */
export function streamUpload(target: UploadTarget, total: number, headers: Record<string, string> = {}) {
  const started = Date.now();
  let sent = 0;
  return new Promise<{ status: number; body: any; sentBeforeAnswer: number; ms: number; connection: string | undefined }>((resolve, reject) => {
    const url = new URL(target.path, inject('apiUrl'));
    const req = request(url, { method: 'POST', headers: { ...target.headers, 'content-type': 'audio/wav', ...headers } });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), sentBeforeAnswer, ms: Date.now() - started, connection: res.headers.connection }));
    });
    // Once the service has answered and closed the connection, the writes fail: that is the point.
    req.on('error', (error) => (answered ? undefined : reject(error)));
    // A WAV header that announces all of it, then silence: audio by its first bytes, so it streams into storage.
    const chunk = Buffer.alloc(256 * 1024);
    const pump = () => {
      while (!answered && sent < total) {
        const piece = sent === 0 ? Buffer.concat([wavHeader({ sampleRate: 48_000, channels: 2, dataBytes: total - 44 }), chunk.subarray(44)]) : chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/**
 * An upload over a bare connection that announces `announced` bytes and sends `before` of them; once the server has
 * closed its side (its whole answer is in), the client sends `after` bytes more and closes its own, as a client busy
 * sending does before it reads the answer. Answers the answer as text, and the error the connection met, if any.
 */
export function uploadPastItsAnswer(target: UploadTarget, sizes: { announced: number; before: number; after: number }) {
  const url = new URL(target.path, inject('apiUrl'));
  const head = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    'Content-Type: audio/wav',
    `Content-Length: ${sizes.announced}`,
    ...Object.entries(target.headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise<{ answer: string; error: string | undefined }>((resolve) => {
    let answer = '';
    let error: string | undefined;
    // Half open: the server's FIN leaves this side free to go on sending.
    const socket = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true });
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('end', () => socket.end(Buffer.alloc(sizes.after)));
    socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code ?? failure.message));
    socket.on('close', () => resolve({ answer, error }));
    socket.write(head);
    socket.write(Buffer.concat([wavHeader({ sampleRate: 48_000, channels: 2, dataBytes: sizes.announced - 44 }), Buffer.alloc(sizes.before - 44)]));
  });
}
