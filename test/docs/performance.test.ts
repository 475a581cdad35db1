import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRepositoryFile, repositoryRoot, sectionsOf, withoutCodeBlocks } from './markdown.ts';

// docs/performance.md holds the current figures of each bench, not their history (which git keeps): one section per
// bench with its command, its table and its goal, and a length a reader can take in.

const maxLines = 400;

/** The `bench:<name>` scripts of package.json, each with the file it runs. */
function benchScripts(): Array<{ name: string; command: string }> {
  const { scripts } = JSON.parse(readRepositoryFile('package.json')) as { scripts: Record<string, string> };
  return Object.entries(scripts)
    .filter(([script]) => script.startsWith('bench:'))
    .map(([script, command]) => ({ name: script.slice('bench:'.length), command }));
}

/** What is missing from the page for the benches, by bench; empty when every bench has its section. */
function problemsOf(page: string, benches: Array<{ name: string }>): string[] {
  const sections = sectionsOf(page);
  const problems: string[] = [];
  for (const { name } of benches) {
    const body = sections.get(`bench/${name}`);
    if (body === undefined) {
      problems.push(`bench:${name} has no section "## bench/${name}"`);
      continue;
    }
    if (!body.includes(`npm run bench:${name}`)) problems.push(`bench/${name}: its command, npm run bench:${name}, is not given`);
    if (!withoutCodeBlocks(body).split('\n').some((line) => line.startsWith('|'))) problems.push(`bench/${name}: no table of figures`);
    if (!/\bgoals?\b/i.test(body)) problems.push(`bench/${name}: no goal stated`);
  }
  const known = new Set(benches.map(({ name }) => `bench/${name}`));
  for (const heading of sections.keys()) {
    if (heading.startsWith('bench/') && !known.has(heading)) problems.push(`"## ${heading}" is not a bench script of package.json`);
  }
  return problems;
}

describe('docs/performance.md', () => {
  const page = readRepositoryFile('docs/performance.md');
  const benches = benchScripts();

  it(`is at most ${maxLines} lines`, () => {
    expect(page.trimEnd().split('\n').length).toBeLessThanOrEqual(maxLines);
  });

  it('finds the bench scripts, each running its own file under bench/', () => {
    const files = readdirSync(join(repositoryRoot, 'bench')).filter((name) => name.endsWith('.ts'));
    expect(benches.length).toBeGreaterThanOrEqual(9);
    for (const { name, command } of benches) expect(command, `bench:${name}`).toBe(`node bench/${name}.ts`);
    expect(files.sort()).toEqual(benches.map(({ name }) => `${name}.ts`).sort());
  });

  it('has a section per bench script with its command, a table and its goal, and none for a bench that is gone', () => {
    expect(problemsOf(page, benches)).toEqual([]);
  });

  it('would report a bench without a section, a section without its parts, and a section of no bench', () => {
    const sample = ['## bench/alpha', '', '```sh', 'npm run bench:alpha', '```', '', '| Figure | Now | Goal |', '', '## bench/beta', '', 'Prose only.', '', '## bench/gamma', ''].join('\n');
    expect(problemsOf(sample, [{ name: 'alpha' }, { name: 'beta' }, { name: 'delta' }])).toEqual([
      'bench/beta: its command, npm run bench:beta, is not given',
      'bench/beta: no table of figures',
      'bench/beta: no goal stated',
      'bench:delta has no section "## bench/delta"',
      '"## bench/gamma" is not a bench script of package.json',
    ]);
  });
});
