import { Agent } from 'node:https';
import { JWT } from 'google-auth-library';
import type { Logger } from '../../logger.ts';
import { takeSlots, type PushPace } from '../../persistence/push-pace.ts';
import { parseAllowCidrs } from '../../security/ip-policy.ts';
import { createOutboundHttpClient, OutboundRequestError } from '../http-client.ts';
import { buildFcmMessage, classifyFcmAnswer, fcmScope, fcmSendUrl } from './fcm-message.ts';
import type { PushMessage, PushOutcome, PushProvider, PushResult } from './push-provider.ts';
import { googleTokenUri, readServiceAccount } from './service-account.ts';

export interface FcmProviderOptions {
  serviceAccountFile: string;
  /** FCM_BASE_URL, e.g. https://fcm.googleapis.com. */
  baseUrl: string;
  /** Requests in flight at once within a batch: a wave of one shard. */
  concurrency: number;
  /**
   * Connections kept to FCM, the most requests in flight across the worker's batches (shards sent side by side);
   * `concurrency` when absent. Fewer than the batches in flight would hold claimed pushes in a queue, not on the wire.
   */
  connections?: number | undefined;
  logger: Logger;
  /** Time one request (a send or a token request) may take; 10 s by default. */
  timeoutMs?: number;
  /** Extra trusted CA certificates (PEM). Production relies on the system store and NODE_EXTRA_CA_CERTS. */
  ca?: string | undefined;
  /** The project's pace across the deployment (FCM_MAX_PER_MINUTE); none sends as fast as `concurrency` allows. */
  paceFor?: ((projectId: string) => PushPace) | undefined;
}

// FCM_BASE_URL and the key file's token_uri are the operator's configuration, not a customer's input, so the SSRF
// guard has nothing to protect here: every address is allowed. Widening OUTBOUND_ALLOW_CIDRS for an FCM proxy
// on a private network would open that range to customer webhooks too.
const everyAddress = parseAllowCidrs('0.0.0.0/0,::/0');

type Verdict = Omit<PushResult, 'sendId'>;

/**
 * Sends through FCM's HTTP v1 API: one request per message (v1 has no batch endpoint), at most `concurrency` in
 * flight. The OAuth2 access token comes from the service account through google-auth-library, which caches it
 * and refreshes it five minutes before it expires.
 */
export function createFcmPushProvider(options: FcmProviderOptions): PushProvider {
  const account = readServiceAccount(options.serviceAccountFile);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const sendUrl = fcmSendUrl(options.baseUrl, account.projectId);
  const pace = options.paceFor?.(account.projectId);
  const http = createOutboundHttpClient({ allow: everyAddress, timeoutMs, ca: options.ca, maxSockets: options.connections ?? options.concurrency });
  const tokenAgent = new Agent({ keepAlive: true, ...(options.ca ? { ca: options.ca } : {}) });
  const auth = new JWT({ email: account.clientEmail, key: account.privateKey, scopes: [fcmScope], transporterOptions: { agent: tokenAgent, timeout: timeoutMs } });
  if (account.tokenUri !== googleTokenUri) {
    // The library always posts the grant to Google's endpoint; a key file naming another token_uri (a private
    // endpoint) is honoured by redirecting that one request. The JWT's audience stays Google's, as Google asks.
    auth.transporter.interceptors.request.add({
      resolved: async (config) => (String(config.url) === googleTokenUri ? { ...config, url: new URL(account.tokenUri) } : config),
    });
  }

  /** A bearer token, or the verdict for every message when none can be had. */
  async function accessToken(): Promise<string | Verdict> {
    try {
      const { token } = await auth.getAccessToken();
      if (token) return token;
      return { outcome: 'retry', error: 'the FCM token endpoint answered without an access token' };
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      const reason = `the FCM token endpoint (${account.tokenUri}) ${typeof status === 'number' ? `answered HTTP ${status}` : 'failed'}: ${(error as Error).message}`;
      // A 4xx is the service account refused (revoked key, wrong clock, unknown account): a configuration problem.
      return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429
        ? { outcome: 'failed', error: `${reason} (a configuration problem: check FCM_SERVICE_ACCOUNT_FILE)` }
        : { outcome: 'retry', error: reason };
    }
  }

  /** One message with the batch's token: the library refreshes five minutes before expiry, so it outlives a batch. */
  async function send(message: PushMessage, token: string, signal: AbortSignal | undefined): Promise<Verdict> {
    if (signal?.aborted) return { outcome: 'retry', error: 'not sent: the batch was aborted' };
    const body = JSON.stringify({ message: buildFcmMessage(message, Date.now()) });
    try {
      const answer = await http.post(sendUrl, { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'user-agent': 'richpush-push/1' }, body, signal);
      return classifyFcmAnswer(answer, Date.now());
    } catch (error) {
      // OutboundRequestError says why (timed out, refused, aborted); nothing here may cost the batch its results.
      // A request that had left may have reached FCM, which cannot dedupe: it is never sent again (docs/adr/0055).
      if (error instanceof OutboundRequestError && error.sent) {
        return { outcome: 'unconfirmed', error: `FCM request failed after it was sent, so it is not sent again: ${error.message}` };
      }
      return { outcome: 'retry', error: `FCM request failed: ${(error as Error).message}` };
    }
  }

  return {
    name: 'fcm',
    waveSize: options.concurrency,
    // The wave's slots in the project's pace, waited for before the engine claims the wave: a claimed wave then goes
    // out slot by slot, and a worker killed while it waits has claimed nothing.
    async pace(count, signal) {
      return pace ? takeSlots(pace, count, signal) : { beganAt: performance.now(), slotMs: 0 };
    },
    async sendBatch(messages, signal) {
      if (messages.length === 0) return [];
      // One token for the batch: when none can be had, no message is tried.
      const token = await accessToken();
      const results = new Array<PushResult>(messages.length);
      if (typeof token !== 'string') {
        messages.forEach((message, index) => (results[index] = { sendId: message.sendId, ...token }));
      } else {
        let next = 0;
        const worker = async () => {
          for (let index = next++; index < messages.length; index = next++) {
            const message = messages[index] as PushMessage;
            results[index] = { sendId: message.sendId, ...(await send(message, token, signal)) };
          }
        };
        await Promise.all(Array.from({ length: Math.min(options.concurrency, messages.length) }, worker));
        // FCM said how long to back off: every send of the deployment waits, not only this one.
        const holdMs = Math.max(0, ...results.map((result) => result.retryAfterMs ?? 0));
        if (holdMs > 0) await pace?.holdFor(holdMs);
      }
      logBatch(options.logger, results);
      return results;
    },
    async close() {
      http.close();
      tokenAgent.destroy();
    },
  };
}

/** One line per batch: the counts, and the first problem (FCM's words; never a token or a key). */
function logBatch(logger: Logger, results: PushResult[]): void {
  const counts: Record<PushOutcome, number> = { sent: 0, unregistered: 0, failed: 0, unconfirmed: 0, retry: 0 };
  for (const result of results) counts[result.outcome] += 1;
  const problem = results.find((result) => result.outcome === 'failed' || result.outcome === 'unconfirmed' || result.outcome === 'retry')?.error;
  if (problem) logger.warn({ provider: 'fcm', ...counts, firstProblem: problem }, 'push batch sent with problems');
  else logger.debug({ provider: 'fcm', ...counts }, 'push batch sent');
}
