import { gzipSync } from 'node:zlib';

/** The scripts a first visit loads before any page's own chunk: the entry and what index.html preloads with it. */
export function firstLoadScripts(indexHtml: string): string[] {
  const scripts = [...indexHtml.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((match) => match[1]!);
  const preloads = [...indexHtml.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)].map((match) => match[1]!);
  return [...scripts, ...preloads];
}

/** Bytes once gzipped (level 9, as the build's `.gz` files are): what a first visit downloads over a compressing link. */
export const gzippedBytes = (body: Uint8Array) => gzipSync(body, { level: 9 }).length;

/** The budget for the first page's JavaScript, gzipped (issue 42, "Shape"). */
export const firstLoadBudgetBytes = 300 * 1024;
