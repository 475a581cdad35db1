import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLink, documentationFiles, filesUnder, linksOf, readRepositoryFile, repositoryRoot } from './markdown.ts';

// A reader follows the documentation by its links, and code comments point into it by path: both must resolve. A
// decision record merged into another stays as a stub, so a link to it still lands somewhere that says where to go.

const readIfMarkdown = (path: string) => (existsSync(join(repositoryRoot, path)) ? readRepositoryFile(path) : undefined);

function brokenLinksOf(file: string, text: string): string[] {
  return linksOf(text).flatMap(({ line, target }) => {
    const problem = brokenLink(file, target, readIfMarkdown);
    return problem ? [`${file}:${line} ${problem}`] : [];
  });
}

/** Source files whose comments and strings may name a documentation file. Fixtures are recorded data, and the
 * documentation tests name files that do not exist on purpose. */
const sourceFiles = (): string[] => [
  ...['src', 'workflows', 'activities', 'bench', 'test']
    .flatMap((folder) => filesUnder(folder, (path) => path.endsWith('/fixtures') || path === 'test/docs'))
    .filter((path) => /\.(ts|cjs|js|py)$/.test(path)),
  'Dockerfile',
  'docker-compose.yml',
  'package.json',
  ...documentationFiles(),
];

describe('links in README.md and docs/', () => {
  const files = documentationFiles();

  it('reads every documentation file, and finds their links', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/adr/README.md']));
    expect(files.flatMap((file) => linksOf(readRepositoryFile(file))).length).toBeGreaterThan(200);
  });

  it('resolves every relative link to a file, and every anchor to a heading of it', () => {
    expect(files.flatMap((file) => brokenLinksOf(file, readRepositoryFile(file)))).toEqual([]);
  });

  it('would report a missing file, a missing heading, and a link out of the repository', () => {
    const sample = [
      'See [the API](api.md#rate-limits), [ops](operations.md#metrics) and [an ADR](adr/README.md).',
      'Broken: [gone](no-such-file.md), [heading](api.md#no-such-heading), [out](../../outside.md).',
      'Ignored: `[code](nowhere.md)`, [web](https://example.com/x.md), [mail](mailto:a@example.com).',
      '```',
      '[in a code block](nowhere.md)',
      '```',
    ].join('\n');
    expect(brokenLinksOf('docs/sample.md', sample)).toEqual([
      'docs/sample.md:2 no-such-file.md: no such file (docs/no-such-file.md)',
      'docs/sample.md:2 api.md#no-such-heading: docs/api.md has no heading whose anchor is #no-such-heading',
      'docs/sample.md:2 ../../outside.md: leaves the repository',
    ]);
  });
});

describe('documentation files named by path', () => {
  const named = sourceFiles().flatMap((file) => {
    const text = readFileSync(join(repositoryRoot, file), 'utf8');
    const paths = [...text.matchAll(/\bdocs\/[A-Za-z0-9_./-]+\.md\b/g)].map(([path]) => path);
    const records = [...text.matchAll(/\bdocs\/adr\/(\d{4})\b/g)].map(([, number]) => number!);
    return [{ file, paths, records }];
  });

  it('exist, for every docs/….md path and every docs/adr/NNNN number the code and the docs name', () => {
    const adrNumbers = new Set(readdirSync(join(repositoryRoot, 'docs/adr')).map((name) => name.slice(0, 4)));
    const missing = named.flatMap(({ file, paths, records }) => [
      ...paths.filter((path) => !existsSync(join(repositoryRoot, path))).map((path) => `${file}: ${path}`),
      ...records.filter((number) => !adrNumbers.has(number)).map((number) => `${file}: docs/adr/${number}`),
    ]);
    expect(missing).toEqual([]);
  });
});
