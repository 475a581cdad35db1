import pMap from 'p-map';
import { call, type TestAccount } from '../support/api.ts';
import { settledFile, shortTake, uploadFile } from '../support/files.ts';
import { ok } from '../support/http-assertions.ts';
import type { ConnectionFixture } from '../support/ingest.ts';
import { newJob } from '../support/jobs.ts';
import { postSignedTo } from '../support/signed-ingest.ts';

/**
 * The two API processes as a load balancer sees them: calls alternate between them, and once one is gone (its process
 * was killed) a call that cannot reach it goes to the other, as a client retries elsewhere.
 */
export class ApiPair {
  readonly #urls: string[];
  readonly #gone = new Set<string>();

  constructor(survivor: string, other: string) {
    this.#urls = [survivor, other];
  }

  /** The API the `index`-th call goes to while both are up. */
  pick(index: number): string {
    const url = this.#urls[index % 2]!;
    return this.#gone.has(url) ? this.#urls[0]! : url;
  }

  markGone(url: string): void {
    this.#gone.add(url);
  }

  /** Runs `send` on the picked API; when that fails to connect, again on the survivor (same request, same ids). */
  async send<T>(index: number, send: (baseUrl: string) => Promise<T>): Promise<T> {
    const first = this.pick(index);
    try {
      return await send(first);
    } catch (error) {
      if (first === this.#urls[0]) throw error;
      return send(this.#urls[0]!);
    }
  }
}

/**
 * Posts one signed event per user (its type, `clientUserId` `user-<n>`, a messageId and webhook-id of its own) through
 * the pair, a few at a time; answers how many were accepted (202, or 409 on a retry). A retry on the other API sends the same ids, so
 * an event the first API stored before it died is not stored twice.
 */
export async function postEvents(apis: ApiPair, connection: ConnectionFixture, eventType: string, users: number, onPosted: (count: number) => void): Promise<number> {
  let accepted = 0;
  let posted = 0;
  await pMap(
    Array.from({ length: users }, (_, index) => index),
    async (index) => {
      const id = `${eventType}-${index}`;
      const body = { version: '1', messageId: id, occurredAt: new Date().toISOString(), eventType, clientUserId: `user-${index}` };
      const answer = await apis.send(index, (baseUrl) => postSignedTo(baseUrl, connection, body, { id: `wh-${id}` }));
      // 409: the messageId was accepted already, by the API that died before it answered.
      if (answer.status === 202 || answer.status === 409) accepted++;
      onPosted(++posted);
    },
    { concurrency: 4 },
  );
  return accepted;
}

/**
 * A recording job taken to ACCEPTED through `baseUrl`: created, started, a take uploaded (POST /file/upload) and
 * processed by a bulk worker, submitted (POST /job/recording { fileId }), selected and accepted. Answers its id.
 */
export async function jobToAccepted(account: TestAccount, apis: ApiPair, index: number): Promise<string> {
  const job = await newJob(account);
  await jobStep(account, apis, index, `/job/executeJob?id=${job.id}`, job.id, 'ASSIGNED');
  const uploaded = ok(await apis.send(index, (baseUrl) => uploadFile(account, shortTake(), { baseUrl })), 202);
  const file = await settledFile(account, uploaded.fileId, { timeoutMs: 120_000 });
  if (file.status !== 'ready') throw new Error(`the take of job ${job.id} was ${file.status}: ${file.reason}`);
  const take = ok(await call('POST', `/job/recording?id=${job.id}`, { token: account.apiKey, body: { fileId: file.fileId } }), 201);
  await jobStep(account, apis, index, `/richPush/select?file_id=${take.fileId}`, job.id, 'SELECTED');
  await jobStep(account, apis, index, `/job/accept?id=${job.id}`, job.id, 'ACCEPTED');
  return job.id;
}

/**
 * One step of a job through the pair. When the API it went to was killed after applying the step but before
 * answering, the retry on the other is refused (409 invalid_state: the job has moved on), and the job is found in the
 * state the step leads to; any other answer fails.
 */
async function jobStep(account: TestAccount, apis: ApiPair, index: number, path: string, jobId: string, leadsTo: string): Promise<void> {
  const token = account.apiKey;
  await apis.send(index, async (baseUrl) => {
    const answer = await call('POST', path, { token, baseUrl });
    if (answer.status === 409 && ok(await call('GET', `/job/get?id=${jobId}`, { token, baseUrl })).status === leadsTo) return;
    ok(answer);
  });
}

/** GET /readyz every 100 ms until stopped: the longest time between two 200s, and the answers that were not 200. */
export function pollReadyz(baseUrl: string): { stop: () => Promise<{ longestGapMs: number; failures: string[]; polls: number }> } {
  let stopped = false;
  let longestGapMs = 0;
  let polls = 0;
  const failures: string[] = [];
  const loop = (async () => {
    let lastOk = Date.now();
    while (!stopped) {
      const started = Date.now();
      polls++;
      try {
        const answer = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
        await answer.arrayBuffer();
        if (answer.status === 200) {
          longestGapMs = Math.max(longestGapMs, Date.now() - lastOk);
          lastOk = Date.now();
        } else failures.push(`${new Date(started).toISOString()} ${answer.status}`);
      } catch (error) {
        failures.push(`${new Date(started).toISOString()} ${String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { longestGapMs, failures, polls };
    },
  };
}
