import { createServer, type Server } from 'node:https';
import { verifyWebhook } from '../../src/security/standard-webhooks.ts';

/** What one phase of the benchmark saw arrive: first receipt time per webhook-id, and what went wrong. */
export class Recording {
  readonly receivedAt = new Map<string, number>();
  /** The body of each first receipt, when the phase needs to read what arrived (`new Recording(true)`). */
  readonly bodies = new Map<string, string>();
  duplicates = 0;
  /** Duplicates by the envelope's event type, to tell which path sent one twice. */
  readonly duplicateTypes = new Map<string, number>();
  signatureFailures = 0;
  readonly failureReasons = new Map<string, number>();
  readonly keepBodies: boolean;
  readonly #waiters = new Map<string, () => void>();

  constructor(keepBodies = false) {
    this.keepBodies = keepBodies;
  }

  /**
   * Notes a receipt: the first of an id counts (its body kept when asked, and whoever waits for it woken), a later one
   * is a duplicate.
   */
  note(id: string, receivedAt: number, body: () => string): void {
    if (this.receivedAt.has(id)) {
      this.duplicates += 1;
      const type = envelopeType(body());
      this.duplicateTypes.set(type, (this.duplicateTypes.get(type) ?? 0) + 1);
      return;
    }
    this.receivedAt.set(id, receivedAt);
    if (this.keepBodies) this.bodies.set(id, body());
    this.#waiters.get(id)?.();
    this.#waiters.delete(id);
  }

  /** Resolves once `id` has arrived (at once if it has). */
  whenReceived(id: string): Promise<void> {
    if (this.receivedAt.has(id)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.set(id, resolve));
  }
}

function envelopeType(body: string): string {
  try {
    return String((JSON.parse(body) as { type?: unknown }).type);
  } catch {
    return 'unreadable';
  }
}

export interface BenchReceiver {
  url: string;
  /** Secrets the signatures are checked against; set once the endpoint exists. */
  secrets: string[];
  /** Where receipts go; swap it between phases. */
  recording: Recording;
  close: () => Promise<void>;
}

/**
 * A bare HTTPS webhook receiver on loopback: answers 200 as soon as the body is in, records the receive time of each
 * webhook-id, and verifies every signature.
 */
export async function startBenchReceiver(tls: { cert: string; key: string }): Promise<BenchReceiver> {
  const state: { secrets: string[]; recording: Recording } = { secrets: [], recording: new Recording() };
  const server: Server = createServer({ cert: tls.cert, key: tls.key, keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = performance.timeOrigin + performance.now();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');

      const recording = state.recording;
      const header = (name: string) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      const id = header('webhook-id');
      const verdict = verifyWebhook({
        headers: { id, timestamp: header('webhook-timestamp'), signature: header('webhook-signature') },
        body: Buffer.concat(chunks),
        secrets: state.secrets,
      });
      if (!verdict.ok) {
        recording.signatureFailures += 1;
        recording.failureReasons.set(verdict.reason, (recording.failureReasons.get(verdict.reason) ?? 0) + 1);
      }
      if (id !== undefined) recording.note(id, receivedAt, () => Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `https://localhost:${port}/hooks`,
    get secrets() {
      return state.secrets;
    },
    set secrets(value) {
      state.secrets = value;
    },
    get recording() {
      return state.recording;
    },
    set recording(value) {
      state.recording = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
