import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, inject, it } from 'vitest';
import * as workflows from '../../workflows/index.ts';
import { contractWorkflowTypes } from '../support/temporal.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const rules: IConfiguration & { sandboxAllowed: string[] } = createRequire(import.meta.url)('./dependency-rules.cjs');

describe('import rules (npm run lint:deps)', () => {
  it('has no import cycle, keeps the sandbox clean, and reaches workflows only through their contracts', { timeout: 60_000 }, async () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const { output } = await cruise(['src', 'workflows', 'activities', 'bench', 'test', 'console'], { ruleSet: rules, ...rules.options, validate: true });
      const violations = (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' → ')})` : ''}`);
      expect(violations).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it('bundles into the workflow sandbox only modules from the allowed set', async () => {
    const bundle = await readFile(inject('workflowBundlePath'), 'utf8');
    // webpack names each bundled module by its path from the project root.
    const modules = [...new Set([...bundle.matchAll(/"\.\/([^"]+?\.(?:ts|js|cjs|mjs))"/g)].map((match) => match[1]!))];
    expect(modules).toContain('workflows/index.ts');
    const allowed = rules.sandboxAllowed.map((pattern) => new RegExp(pattern));
    expect(modules.filter((path) => !allowed.some((pattern) => pattern.test(path)))).toEqual([]);
  });
});

describe('workflow contracts', () => {
  it('gives every registered workflow one contract module whose type name is its export name', async () => {
    const declared = await contractWorkflowTypes();
    const files = declared.map((entry) => entry.file);
    expect(new Set(files).size, 'one workflow type per contract module').toBe(files.length);
    expect(declared.map((entry) => entry.type).sort()).toEqual(Object.keys(workflows).sort());
  });
});
