import { describe, expect, inject, it } from 'vitest';
import { firstLoadBudgetBytes, firstLoadScripts, gzippedBytes } from './first-load.ts';

// How the API serves the console's build (docs/console.md, "How it is served"): pages never cached and under a
// strict Content-Security-Policy, hashed assets cached for good, API paths left to the API.

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${inject('apiUrl')}${path}`, { headers });

async function indexHtml(): Promise<string> {
  const response = await get('/console');
  expect(response.status).toBe(200);
  return response.text();
}

describe('the console pages', () => {
  it('answer every console address and an artist’s link with index.html: no-store, default-src self, no inline script or style', async () => {
    const html = await indexHtml();
    for (const path of ['/console', '/console/', '/console/messages', '/console/messages/3b1f0c5e-0000-4000-8000-000000000000', '/console/no/such/page', '/artist/art_whatever']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toBe("default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await response.text()).toBe(html);
    }
    expect(html).toMatch(/<script type="module" crossorigin src="\/console\/assets\/[^"]+\.js"><\/script>/);
    // Every script is a file of this origin; no inline script, handler or style would pass the policy.
    expect([...html.matchAll(/<script\b([^>]*)>/g)].filter(([, attributes]) => !/\bsrc="\/console\/assets\//.test(attributes!))).toEqual([]);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=|javascript:|data:/i);
  });

  it('serve hashed assets immutable, gzipped when asked, and a missing one as 404', async () => {
    const html = await indexHtml();
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3); // the entry script, its stylesheet, the icon
    for (const asset of assets) {
      const response = await get(asset);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-type')).toMatch(/^(text\/javascript|text\/css|image\/svg\+xml)/);
      expect(response.headers.get('content-encoding')).toBe('gzip'); // fetch asks for gzip, and undoes it
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const plain = await get(assets[0]!, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const missing = await get('/console/assets/index-missing.js');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('not_found');
  });

  it('leave the API’s own paths to the API: another method there is 405, not a page', async () => {
    const logout = await get('/console/logout');
    expect(logout.status).toBe(405);
    expect(((await logout.json()) as any).error.code).toBe('method_not_allowed');
    expect(await (await get('/console/session')).json()).toEqual({ signedIn: false });
    expect((await get('/artist/art_x/job')).headers.get('content-type')).toMatch(/^application\/json/);
  });

  it(`load at most ${firstLoadBudgetBytes / 1024} KB of gzipped JavaScript on the first page`, async () => {
    const scripts = firstLoadScripts(await indexHtml());
    expect(scripts.length).toBeGreaterThanOrEqual(1);
    let total = 0;
    for (const script of scripts) total += gzippedBytes(new Uint8Array(await (await get(script, { 'accept-encoding': 'identity' })).arrayBuffer()));
    expect(total).toBeGreaterThan(10 * 1024); // React alone is more: the measure is real
    expect(total).toBeLessThanOrEqual(firstLoadBudgetBytes);
  });
});
