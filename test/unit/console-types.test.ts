import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { consoleTypesFile, generateConsoleTypes } from '../../src/dev/console-types.ts';

describe("the console's API types", () => {
  it('are what the routes generate now: after a route or schema changes, `npm run console:types` and commit', { timeout: 30_000 }, async () => {
    const committed = await readFile(consoleTypesFile, 'utf8');
    const generated = await generateConsoleTypes();
    expect(generated).toContain('"/notification/list"');
    expect(committed === generated, 'console/src/api/openapi.d.ts is stale: run `npm run console:types` and commit it').toBe(true);
  });
});
