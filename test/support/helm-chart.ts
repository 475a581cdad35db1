import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { hadolint, helm, kubernetesValidate } from '../../src/dev/cli-path.ts';
import { provisionOnThisMachine } from '../../src/dev/provision-cli.ts';

/** The chart, its tools (found or installed once into the per-user cache) and what it renders, for test/deploy/. */

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
export const chartDir = resolve(repositoryRoot, 'deploy/helm/richpush');
/** The Kubernetes version the rendered manifests are validated against. */
export const kubernetesVersion = '1.33.0';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface ChartTools {
  helm: string;
  hadolint: string;
  kubernetesValidate: string;
}

export async function provisionChartTools(): Promise<ChartTools> {
  const progress = (line: string) => process.stderr.write(`[helm test] ${line}\n`);
  // One after another: each may install, and the machine is shared.
  return {
    helm: await provisionOnThisMachine(helm, progress),
    hadolint: await provisionOnThisMachine(hadolint, progress),
    kubernetesValidate: await provisionOnThisMachine(kubernetesValidate, progress),
  };
}

export interface Outcome {
  code: number;
  output: string;
}

/** Runs a tool to its end; a non-zero exit is an outcome, not an exception. */
export async function runTool(binary: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Outcome> {
  try {
    const { stdout, stderr } = await promisify(execFile)(binary, args, { env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** `-f` arguments for values files of the chart (by name) or anywhere (by absolute path). */
function valuesArgs(valuesFiles: string[], chart: string): string[] {
  return valuesFiles.flatMap((file) => ['-f', resolve(chart, file)]);
}

export function lintChart(tools: ChartTools, valuesFiles: string[], chart = chartDir): Promise<Outcome> {
  return runTool(tools.helm, ['lint', '--strict', chart, ...valuesArgs(valuesFiles, chart)]);
}

/** `helm template` as a release named richpush in namespace richpush: the text, or the failure. */
export function templateChart(tools: ChartTools, valuesFiles: string[], chart = chartDir): Promise<Outcome> {
  return runTool(tools.helm, ['template', 'richpush', chart, '--namespace', 'richpush', ...valuesArgs(valuesFiles, chart)]);
}

export async function renderChart(tools: ChartTools, valuesFiles: string[], chart = chartDir): Promise<{ text: string; manifests: Manifest[] }> {
  const rendered = await templateChart(tools, valuesFiles, chart);
  if (rendered.code !== 0) throw new Error(`helm template failed: ${rendered.output}`);
  const manifests = parseAllDocuments(rendered.output)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
  return { text: rendered.output, manifests };
}

const kedaGroup = 'keda.sh/';
export const isKeda = (manifest: Manifest) => manifest.apiVersion.startsWith(kedaGroup);

/**
 * Validates manifests against Kubernetes' own schemas, strictly (no field the schema lacks). A kind it has no schema
 * for is a failure too (KEDA's kinds are validated apart, by the caller).
 */
export async function validateWithKubernetesSchemas(tools: ChartTools, manifests: Manifest[]): Promise<Outcome> {
  const scratch = await mkdtemp(join(tmpdir(), 'rp-helm-'));
  try {
    const file = join(scratch, 'manifests.yaml');
    await writeFile(file, manifests.map((manifest) => JSON.stringify(manifest)).join('\n---\n'));
    // The wheel's dependencies sit beside it, in the install directory (bin/'s parent).
    const env = { ...process.env, PYTHONPATH: dirname(dirname(tools.kubernetesValidate)) };
    const outcome = await runTool(tools.kubernetesValidate, ['--strict', '--quiet', '-k', kubernetesVersion, file], env);
    const unknownKind = /Couldn't find schema/.test(outcome.output);
    return unknownKind && outcome.code === 0 ? { code: 1, output: outcome.output } : outcome;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A copy of the chart with one more template, to show that what it renders is checked. */
export async function chartWithExtraTemplate(templateFile: string): Promise<{ chart: string; remove: () => Promise<void> }> {
  const scratch = await mkdtemp(join(tmpdir(), 'rp-helm-chart-'));
  const chart = join(scratch, 'richpush');
  await cp(chartDir, chart, { recursive: true });
  await cp(templateFile, join(chart, 'templates', 'zz-extra.yaml'));
  return { chart, remove: () => rm(scratch, { recursive: true, force: true }) };
}
