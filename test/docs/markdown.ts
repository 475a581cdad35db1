import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// What the documentation tests need of Markdown: its prose without code, its links, and its headings' anchors as
// GitHub makes them. Enough for this repository's docs, not a Markdown parser.

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const readRepositoryFile = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');

/** The files under a folder of the repository (skipping folders `skip` names), as repository paths, sorted. */
export function filesUnder(folder: string, skip: (path: string) => boolean = () => false): string[] {
  return readdirSync(join(repositoryRoot, folder))
    .sort()
    .flatMap((name) => {
      const path = `${folder}/${name}`;
      if (skip(path)) return [];
      return statSync(join(repositoryRoot, path)).isDirectory() ? filesUnder(path, skip) : [path];
    });
}

/** The Markdown files a reader follows links through: README.md and everything under docs/, as repository paths. */
export const documentationFiles = (): string[] => ['README.md', ...filesUnder('docs').filter((path) => path.endsWith('.md'))];

/** The text with fenced code blocks blanked out (line numbers kept), so that code is never read as prose. */
export function withoutCodeBlocks(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (marker?.startsWith(fence)) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

export interface Link {
  line: number;
  target: string;
}

/** Inline links and images, `[text](target)`, outside code blocks and code spans. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  withoutCodeBlocks(text)
    .split('\n')
    .forEach((line, index) => {
      const prose = line.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
      for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: index + 1, target: match[1] ?? '' });
    });
  return links;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a file's headings give, with GitHub's `-1`, `-2` for a repeated heading. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCodeBlocks(text).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** What is wrong with one relative link of `file` (a repository path), or undefined when it resolves. */
export function brokenLink(file: string, target: string, read: (path: string) => string | undefined): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart = '', anchor] = target.split('#', 2);
  const path = pathPart === '' ? file : relative(repositoryRoot, resolve(repositoryRoot, dirname(file), decodeURIComponent(pathPart)));
  if (path.startsWith('..')) return `${target}: leaves the repository`;
  if (!existsSync(join(repositoryRoot, path))) return `${target}: no such file (${path})`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!path.endsWith('.md')) return `${target}: an anchor into a file that is not Markdown`;
  const text = read(path);
  if (text === undefined) return `${target}: cannot read ${path}`;
  return anchorsOf(text).has(anchor) ? undefined : `${target}: ${path} has no heading whose anchor is #${anchor}`;
}

/** Each `## ` section of a file by its heading's text, with its body up to the next `## `. */
export function sectionsOf(text: string): Map<string, string> {
  const lines = text.split('\n');
  const starts = withoutCodeBlocks(text)
    .split('\n')
    .flatMap((line, index) => (line.startsWith('## ') ? [index] : []));
  return new Map(starts.map((start, index) => [lines[start]!.slice(3).trim(), lines.slice(start + 1, starts[index + 1]).join('\n')]));
}
