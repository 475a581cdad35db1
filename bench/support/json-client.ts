import { Agent, request } from 'node:http';

export interface TimedResponse {
  /** The HTTP status, or 0 when the call failed without one (then `error` holds the code). */
  status: number;
  body: unknown;
  error?: string;
  /** Request start → response fully read, in ms (the JSON is parsed after the clock stops). */
  ms: number;
  /** Epoch ms (performance.timeOrigin + performance.now()) at the start and at the end of the call. */
  startedAt: number;
  endedAt: number;
}

export interface JsonClient {
  call(method: string, path: string, options?: { token?: string; body?: unknown }): Promise<TimedResponse>;
  close: () => void;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * A client as an API consumer would use it: JSON over a keep-alive `http.Agent` (at most `maxSockets` connections),
 * a bearer token, nothing else. Each call is timed from just before the request is created to the end of the
 * response body.
 */
export function createJsonClient(origin: string, maxSockets: number): JsonClient {
  const agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  return {
    call(method, path, options = {}) {
      const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'bench-jobs/1' };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(payload));
      }
      const startedAt = now();
      return new Promise<TimedResponse>((resolve) => {
        const failed = (error: NodeJS.ErrnoException) => {
          const endedAt = now();
          resolve({ status: 0, body: undefined, error: error.code ?? error.message, ms: endedAt - startedAt, startedAt, endedAt });
        };
        const outgoing = request(`${origin}${path}`, { method, agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.once('error', failed);
          res.once('end', () => {
            const endedAt = now();
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              // not JSON: keep the text
            }
            resolve({ status: res.statusCode ?? 0, body, ms: endedAt - startedAt, startedAt, endedAt });
          });
        });
        outgoing.once('error', failed);
        outgoing.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}
