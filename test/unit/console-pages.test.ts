import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, requestListener } from '../../src/http/app.ts';
import type { ApiServices } from '../../src/http/services.ts';
import { routes } from '../../src/api/routes.ts';
import { createLogger } from '../../src/logger.ts';
import { createApiMetrics } from '../../src/metrics/api-metrics.ts';
import { Registry } from 'prom-client';

// An API whose console has never been built: its pages answer a 503 that says how to build it, and the API is unaffected.
// Its files are on an S3-compatible store, whose presigned URLs (where playback redirects) are on another origin.
const bucketOrigin = 'http://127.0.0.1:8333';
const s3Storage = { presignedGetUrl: async (key: string) => `${bucketOrigin}/recordings-bucket/${key}?X-Amz-Signature=abc` };

let server: Server;
let url: string;
let emptyDir: string;

beforeAll(async () => {
  emptyDir = await mkdtemp(join(tmpdir(), 'rp-console-unbuilt-'));
  // Only what serving a page touches; no request here reaches a database.
  const services = { logger: createLogger('silent', 'test'), metrics: createApiMetrics(new Registry(), () => Promise.reject(new Error("no database here"))), consoleDir: emptyDir, files: { storage: s3Storage } } as unknown as ApiServices;
  server = createServer(requestListener(buildApp(routes, services)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(emptyDir, { recursive: true, force: true });
});

describe('the console without a build', () => {
  it('answers its pages with a 503 page saying how to build it, under the same policy', async () => {
    for (const path of ['/console', '/console/messages', '/artist/art_x']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(503);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      // Everything from this origin, but a recording's player may follow playback's redirect to the bucket.
      expect(response.headers.get('content-security-policy')).toBe(
        `default-src 'self'; media-src 'self' ${bucketOrigin}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
      );
      expect(await response.text()).toContain('npm run build:console');
    }
  });

  it('answers a missing asset 404, never with a page', async () => {
    const response = await fetch(`${url}/console/assets/index-missing.js`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.code).toBe('not_found');
  });

  it('leaves the API’s paths to the API', async () => {
    expect((await fetch(`${url}/console/logout`)).status).toBe(405);
  });
});
