import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * The image installs with `npm ci --omit=dev`, builds the workflow bundle (`npm run bundle:workflows`) and runs
 * `npm run api`, `npm run worker` and `npm run migrate`. Every package those entry points load at run time, statically or with import(), must therefore be a production
 * dependency; dev-only code (src/dev/: embedded servers, CLI provisioning) must stay out of their import graph.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const entryPoints = ['src/main/api.ts', 'src/main/worker.ts', 'src/main/migrate.ts', 'src/main/bundle-workflows.ts'];

/** `@scope/name/deep/path.js` → `@scope/name`; `name/x` → `name`. */
const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

async function runtimeImports(): Promise<{ modules: string[]; packages: Map<string, string[]> }> {
  const cwd = process.cwd();
  process.chdir(root);
  try {
    const { output } = await cruise(entryPoints, {
      tsPreCompilationDeps: true,
      tsConfig: { fileName: 'tsconfig.json' },
      doNotFollow: { path: 'node_modules' },
    });
    const result = output as ICruiseResult;
    const packages = new Map<string, string[]>();
    for (const module of result.modules) {
      if (module.source.startsWith('node_modules/')) continue;
      for (const dependency of module.dependencies) {
        const runtime = !dependency.dependencyTypes.includes('type-only');
        const external = dependency.dependencyTypes.some((type) => type.startsWith('npm'));
        if (!runtime || !external) continue;
        const name = packageOf(dependency.module);
        packages.set(name, [...(packages.get(name) ?? []), module.source]);
      }
    }
    return { modules: result.modules.map((module) => module.source), packages };
  } finally {
    process.chdir(cwd);
  }
}

describe('the production entry points (npm ci --omit=dev)', () => {
  it('load only production dependencies and no dev-only code', { timeout: 60_000 }, async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    const { modules, packages } = await runtimeImports();

    expect(modules).toEqual(expect.arrayContaining(entryPoints));
    expect(modules.filter((source) => source.startsWith('src/dev/'))).toEqual([]);
    const notProduction = [...packages].filter(([name]) => !(name in manifest.dependencies)).map(([name, from]) => `${name} (from ${from.join(', ')})`);
    expect(notProduction).toEqual([]);
    // The graph is real: the worker reaches the Temporal worker package and the migrations their ORM.
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['@temporalio/worker', '@mikro-orm/migrations', 'koa']));
  });
});
