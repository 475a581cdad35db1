import { Agent, request } from 'node:https';

export interface BaselineClient {
  post(url: string, headers: Record<string, string>, body: string): Promise<number>;
  close: () => void;
}

/** The plain-Node path: one keep-alive HTTPS agent that trusts the bench certificate, nothing else. */
export function createBaselineClient(ca: string): BaselineClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca });
  return {
    post(url, headers, body) {
      return new Promise<number>((resolve, reject) => {
        const req = request(
          url,
          { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body), 'user-agent': 'bench-baseline/1' } },
          (res) => {
            res.resume();
            res.once('end', () => resolve(res.statusCode ?? 0));
            res.once('error', reject);
          },
        );
        req.once('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
