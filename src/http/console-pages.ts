import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context, Middleware } from 'koa';
import type { Router } from '@koa/router';
import type { ObjectStorage } from '../storage/index.ts';

// Serves the console's build (docs/console.md, "How it is served"). Hashed assets are cached for good; every page
// address gets index.html, never cached, under a Content-Security-Policy that allows this origin's files only.

/**
 * No inline script or style, nothing from elsewhere, never framed, forms and `<base>` kept home. `default-src 'self'`
 * covers scripts, styles, images, fonts, media and fetches; the rest are the directives it does not cover. Media may
 * also come from `mediaOrigin`: on the S3 driver a recording's URL redirects to the bucket, which a player follows.
 */
export function consoleContentSecurityPolicy(mediaOrigin?: string): string {
  const media = mediaOrigin ? `; media-src 'self' ${mediaOrigin}` : '';
  return `default-src 'self'${media}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}

/** The origin a recording's playback redirects to: the bucket's, read off a presigned URL (local storage: none). */
async function playbackOrigin(storage: Pick<ObjectStorage, 'presignedGetUrl'>): Promise<string | undefined> {
  if (!storage.presignedGetUrl) return undefined;
  return new URL(await storage.presignedGetUrl('recordings/origin-probe')).origin;
}

const pageHeaders = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  // Same-origin calls keep their Origin header (the CSRF rule reads it); other origins learn no address, an artist's link included.
  'Referrer-Policy': 'same-origin',
};

const immutable = 'public, max-age=31536000, immutable';

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** An asset's name as Vite writes it: one path segment of plain characters, so no path can leave the folder. */
const assetPattern = /^\/console\/assets\/([A-Za-z0-9_-][A-Za-z0-9._-]*)$/;
/** The addresses that are pages: the console's, and an artist's link (`/artist/{token}`, one segment). */
const pagePattern = /^\/console(\/.*)?$|^\/artist\/[^/]+$/;

const unbuilt = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The console has not been built</h1>
<p>This server has no build of the console to serve. Build it with <code>npm run build:console</code> (the image does
this once), or run <code>npm start</code>, which builds it when its sources change. The API itself is unaffected.</p>
</body></html>
`;

async function fileOrUndefined(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function serveAsset(ctx: Context, dir: string, name: string): Promise<void> {
  const path = join(dir, 'assets', name);
  const extension = name.slice(name.lastIndexOf('.'));
  const gzipped = /\bgzip\b/.test(ctx.get('accept-encoding')) ? await fileOrUndefined(`${path}.gz`) : undefined;
  const body = gzipped ?? (await fileOrUndefined(path));
  if (!body) return; // the error handler answers 404
  ctx.set({ 'Cache-Control': immutable, 'X-Content-Type-Options': 'nosniff', Vary: 'Accept-Encoding' });
  if (gzipped) ctx.set('Content-Encoding', 'gzip');
  ctx.type = contentTypes[extension] ?? 'application/octet-stream';
  ctx.body = body;
}

async function servePage(ctx: Context, dir: string, policy: string): Promise<void> {
  ctx.set({ ...pageHeaders, 'Content-Security-Policy': policy });
  ctx.type = 'text/html; charset=utf-8';
  const index = await fileOrUndefined(join(dir, 'index.html'));
  if (index) {
    ctx.body = index;
    return;
  }
  ctx.status = 503;
  ctx.set('Retry-After', '60');
  ctx.body = unbuilt;
}

/**
 * GET and HEAD of the console's addresses that are not API routes: `/console/assets/<file>` from the build, and
 * every other `/console/*` and `/artist/{token}` as `index.html`, whose script picks the page. A missing build is a
 * 503 page saying how to build it. Mounted after the API's routes, so an API path (`/console/session`) is never a page.
 */
export function consolePages(dir: string, router: Router, storage: Pick<ObjectStorage, 'presignedGetUrl'>): Middleware {
  let policy: Promise<string> | undefined;
  return async (ctx, next) => {
    const apiPath = router.match(ctx.path, ctx.method).path.length > 0;
    const asset = assetPattern.exec(ctx.path);
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || apiPath) await next();
    else if (asset) await serveAsset(ctx, dir, asset[1]!);
    else if (pagePattern.test(ctx.path)) await servePage(ctx, dir, await (policy ??= playbackOrigin(storage).then(consoleContentSecurityPolicy)));
    else await next();
  };
}
