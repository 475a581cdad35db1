import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ScaledObject, TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { beforeAll, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../src/api/health/routes.ts';
import { loadConfig, requiredSettings, settingNames, workerRoles, type Role, type WorkerConfig } from '../../src/config.ts';
import { launchEnvironmentOf, nodeFlagsOf } from '../../src/main/node-flags.ts';
import { taskQueuesOfRole } from '../../src/service/worker-process.ts';
import { workerShutdownGraceSeconds } from '../../src/temporal/worker.ts';
import {
  chartDir,
  chartWithExtraTemplate,
  isKeda,
  lintChart,
  provisionChartTools,
  renderChart,
  repositoryRoot,
  runTool,
  templateChart,
  validateWithKubernetesSchemas,
  type ChartTools,
  type Manifest,
} from '../support/helm-chart.ts';

/**
 * The Helm chart (deploy/helm/richpush), checked offline: helm lint and template for each values file, the manifests
 * against Kubernetes 1.33's schemas and KEDA's, the settings each process gets against src/config.ts, and the
 * Dockerfile with hadolint. Each check is shown to fail on a broken input (test/fixtures/helm/).
 */

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  command?: string[];
  env?: EnvVar[];
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  readinessProbe?: { httpGet?: { path: string } };
  livenessProbe?: { httpGet?: { path: string } };
}
interface PodSpec {
  containers: Container[];
  volumes?: Array<{ name: string; emptyDir?: object }>;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  terminationGracePeriodSeconds?: number;
}

const fixture = (name: string) => resolve(repositoryRoot, 'test/fixtures/helm', name);
const valuesFiles: Array<[name: string, files: string[]]> = [
  ['the default values', []],
  ['values-cloud.yaml', ['values-cloud.yaml']],
  ['values-selfhosted.yaml', ['values-selfhosted.yaml']],
  ['mTLS to Temporal (test/fixtures/helm/mtls.yaml)', [fixture('mtls.yaml')]],
  ['worker versioning mid-rollout (test/fixtures/helm/versioned.yaml)', [fixture('versioned.yaml')]],
];
const scripts = JSON.parse(readFileSync(resolve(repositoryRoot, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string> };

/** Settings that are secrets: never a plain value in a manifest. */
const secretSettings = ['ADMIN_TOKEN', 'SECRETS_KEY', 'DATABASE_URL', 'TEMPORAL_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];
/** Variables a process reads that are not the service's settings: the AWS SDK's credentials chain. */
const sdkVariables = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];

const podSpecOf = (manifest: Manifest) => (manifest.spec as { template: { spec: PodSpec } }).template.spec;
const workloads = (manifests: Manifest[]) => manifests.filter((manifest) => manifest.kind === 'Deployment' || manifest.kind === 'Job');
const component = (manifest: Manifest) => manifest.metadata.labels?.['app.kubernetes.io/component'];
const find = (manifests: Manifest[], kind: string, name: string) => manifests.find((manifest) => manifest.kind === kind && component(manifest) === name);
/** The Deployment a scaler scales, or the one whose pods a PDB selects (they carry its selector's labels). */
function targetOf(manifest: Manifest, manifests: Manifest[]): string | undefined {
  const spec = manifest.spec as { scaleTargetRef?: { name: string }; selector?: { matchLabels: Record<string, string> } };
  if (spec.scaleTargetRef) return spec.scaleTargetRef.name;
  if (manifest.kind !== 'PodDisruptionBudget') return undefined;
  const labels = JSON.stringify(spec.selector?.matchLabels);
  return manifests.find((candidate) => candidate.kind === 'Deployment' && JSON.stringify((candidate.spec as { selector: { matchLabels: unknown } }).selector.matchLabels) === labels)?.metadata.name;
}
const entryPointOf = (container: Container) => container.command?.at(-1) ?? '';
const entryPoints: Record<string, Role> = { 'src/main/api.ts': 'api', 'src/main/worker.ts': 'worker', 'src/main/migrate.ts': 'migrate', 'src/main/promote-version.ts': 'promote' };
const roleOf = (container: Container): Role => entryPoints[entryPointOf(container)]!;
const envValue = (container: Container, name: string) => container.env?.find((variable) => variable.name === name)?.value;

/** A process's environment with each Secret's value replaced by a stand-in valid for that setting. */
function environmentOf(container: Container): NodeJS.ProcessEnv {
  const standIns: Record<string, string> = { DATABASE_URL: 'postgres://richpush:secret@postgres:5432/richpush' };
  const standIn = (name: string) => standIns[name] ?? Buffer.alloc(32, 7).toString('base64');
  return Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable.valueFrom ? standIn(variable.name) : variable.value]));
}

let tools: ChartTools;
beforeAll(async () => {
  tools = await provisionChartTools();
}, 600_000);

it('runs Helm 4', async () => {
  const version = await runTool(tools.helm, ['version', '--short']);
  expect(version.output).toMatch(/^v4\./);
});

describe.each(valuesFiles)('the chart with %s', (_, files) => {
  let manifests: Manifest[];
  beforeAll(async () => {
    manifests = (await renderChart(tools, files)).manifests;
  });


  it('passes helm lint --strict', async () => {
    const lint = await lintChart(tools, files);
    expect(lint.code, lint.output).toBe(0);
  });

  it("renders manifests that Kubernetes 1.33's schemas and KEDA's take", async () => {
    const validation = await validateWithKubernetesSchemas(tools, manifests.filter((manifest) => !isKeda(manifest)));
    expect(validation.code, validation.output).toBe(0);
    for (const manifest of manifests.filter(isKeda)) {
      const model = manifest.kind === 'ScaledObject' ? new ScaledObject(manifest as never) : new TriggerAuthentication(manifest as never);
      expect(() => model.validate(), `${manifest.kind} ${manifest.metadata.name}`).not.toThrow();
    }
  });

  it('gives each process every setting its role requires and only settings src/config.ts reads, and its settings load', () => {
    const containers = workloads(manifests).flatMap((manifest) => podSpecOf(manifest).containers);
    const roles = new Set(containers.map(roleOf));
    // Promotion is a step of versioned rollouts only.
    const versioned = containers.some((container) => envValue(container, 'WORKER_DEPLOYMENT_NAME') !== undefined);
    expect(roles).toEqual(new Set(['api', 'migrate', 'worker', ...(versioned ? ['promote'] : [])]));
    for (const container of containers) {
      const role = roleOf(container);
      const names = (container.env ?? []).map((variable) => variable.name);
      const known = [...settingNames(role), ...sdkVariables, ...Object.keys(launchEnvironmentOf(entryPointOf(container)))];
      expect(names.filter((name) => !known.includes(name)), `${role}: settings src/config.ts does not read`).toEqual([]);
      expect(requiredSettings(role).filter((name) => !names.includes(name)), `${role}: required settings`).toEqual([]);
      expect(() => loadConfig(role as 'api', environmentOf(container)), role).not.toThrow();
    }
  });

  it("mounts the Temporal client certificate where TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE point, when there is one", () => {
    for (const manifest of workloads(manifests).filter((workload) => component(workload) !== 'migrate')) {
      const pod = podSpecOf(manifest);
      const container = pod.containers[0]!;
      const files = ['TEMPORAL_TLS_CERT_FILE', 'TEMPORAL_TLS_KEY_FILE'].map((name) => envValue(container, name));
      if (files.every((file) => file === undefined)) continue;
      for (const file of files) {
        const mount = container.volumeMounts?.find((candidate) => file?.startsWith(`${candidate.mountPath}/`));
        const volume = pod.volumes?.find((candidate) => candidate.name === mount?.name) as { secret?: { secretName: string } } | undefined;
        expect(volume?.secret?.secretName, `${container.name}: ${file}`).toMatch(/\S/);
      }
    }
  });

  it('takes every secret from an existing Secret, never from a value', () => {
    const variables = workloads(manifests).flatMap((manifest) => podSpecOf(manifest).containers.flatMap((container) => container.env ?? []));
    const secrets = variables.filter((variable) => secretSettings.includes(variable.name));
    expect(secrets.length).toBeGreaterThan(0);
    for (const variable of secrets) {
      expect(variable.value, variable.name).toBeUndefined();
      expect(variable.valueFrom?.secretKeyRef?.name, variable.name).toMatch(/\S/);
    }
    expect(manifests.filter((manifest) => manifest.kind === 'Secret')).toEqual([]);
  });

  it('runs every pod as non-root on a read-only root filesystem, with /tmp on an emptyDir', () => {
    for (const manifest of workloads(manifests)) {
      const pod = podSpecOf(manifest);
      expect(pod.securityContext?.runAsNonRoot, manifest.metadata.name).toBe(true);
      expect(pod.securityContext?.runAsUser, manifest.metadata.name).toBeGreaterThan(0);
      for (const container of pod.containers) {
        expect(container.securityContext?.readOnlyRootFilesystem, container.name).toBe(true);
        expect(container.securityContext?.allowPrivilegeEscalation, container.name).toBe(false);
        const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
        expect(pod.volumes?.find((volume) => volume.name === tmp?.name)?.emptyDir, `${container.name}: /tmp`).toBeDefined();
      }
    }
  });

  it('runs each entry point as its npm script does, with the S3 storage driver', () => {
    for (const manifest of workloads(manifests)) {
      for (const container of podSpecOf(manifest).containers) {
        const entryPoint = entryPointOf(container);
        const script = Object.values(scripts.scripts).find((command) => command.endsWith(` ${entryPoint}`) && !command.includes('build'));
        const launch = Object.entries(launchEnvironmentOf(entryPoint)).map(([name, value]) => `${name}=${value}`);
        expect(script).toBe([...launch, ...container.command!].join(' '));
        expect(container.command).toEqual(['node', ...nodeFlagsOf(entryPoint), entryPoint]);
        for (const [name, value] of Object.entries(launchEnvironmentOf(entryPoint))) expect(envValue(container, name)).toBe(value);
        if (roleOf(container) === 'api' || roleOf(container) === 'worker') expect(envValue(container, 'STORAGE_DRIVER'), container.name).toBe('s3');
      }
    }
  });

  it('runs one worker Deployment per role, with its PDB, a grace period longer than its shutdown, and a scaler on its own queue', () => {
    const roles = workerRoles.filter((role) => role !== 'all');
    const kedaEnabled = manifests.some(isKeda);
    const deployments = manifests.filter((manifest) => manifest.kind === 'Deployment' && component(manifest)?.startsWith('worker-'));
    const builds = new Set(deployments.map((deployment) => deployment.metadata.labels?.['richpush/build']));
    // One Deployment per role, per build when versioned.
    expect(deployments).toHaveLength(roles.length * builds.size);
    for (const deployment of deployments) {
      // The scaler owns the count: a replicas field would reset it at every upgrade.
      expect((deployment.spec as { replicas?: number }).replicas).toBeUndefined();
      const pod = podSpecOf(deployment);
      const config = loadConfig('worker', environmentOf(pod.containers[0]!));
      expect(component(deployment)).toBe(`worker-${config.WORKER_ROLE}`);
      // The worker's own grace for activities in flight, plus closing its connections and pools.
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(workerShutdownGraceSeconds + 20);
      const queues = taskQueuesOfRole(config.WORKER_ROLE, { taskQueue: config.TEMPORAL_TASK_QUEUE, interactiveTaskQueue: config.TEMPORAL_INTERACTIVE_TASK_QUEUE });
      expect(queues).toHaveLength(1);
      const targeting = (kind: string) => manifests.filter((manifest) => manifest.kind === kind && targetOf(manifest, manifests) === deployment.metadata.name);
      expect(targeting('PodDisruptionBudget'), deployment.metadata.name).toHaveLength(1);
      const [scaler] = targeting(kedaEnabled ? 'ScaledObject' : 'HorizontalPodAutoscaler');
      expect(scaler, deployment.metadata.name).toBeDefined();
      if (kedaEnabled) expectTemporalTrigger(scaler!, queues[0]!, config, manifests);
    }
  });
});

/** The ScaledObject scales on the worker's queue, of its namespace, at its address, with its credentials. */
function expectTemporalTrigger(scaler: Manifest, queue: string, config: WorkerConfig, manifests: Manifest[]): void {
  type Trigger = { type: string; metadata: Record<string, string>; authenticationRef?: { name: string } };
  const [trigger] = (scaler.spec as { triggers: Trigger[] }).triggers;
  expect(trigger?.type).toBe('temporal');
  expect(trigger?.metadata).toMatchObject({ taskQueue: queue, namespace: config.TEMPORAL_NAMESPACE, endpoint: config.TEMPORAL_ADDRESS });
  // A versioned worker scales on its own build's backlog.
  expect(trigger?.metadata.workerDeploymentName).toBe(config.WORKER_DEPLOYMENT_NAME);
  expect(trigger?.metadata.workerDeploymentBuildId).toBe(config.WORKER_BUILD_ID);
  const expected = [...(config.TEMPORAL_API_KEY === undefined ? [] : ['apiKey']), ...(config.TEMPORAL_TLS_CERT_FILE === undefined ? [] : ['cert', 'key'])];
  if (expected.length === 0) return;
  const authentication = manifests.find((manifest) => manifest.kind === 'TriggerAuthentication' && manifest.metadata.name === trigger?.authenticationRef?.name);
  expect((authentication?.spec as { secretTargetRef: Array<{ parameter: string }> }).secretTargetRef.map((ref) => ref.parameter)).toEqual(expected);
}

describe('the chart with the default values', () => {
  let rendered: { text: string; manifests: Manifest[] };
  beforeAll(async () => {
    rendered = await renderChart(tools, []);
  });

  it('renders as the snapshot (a change to the manifests is a change to this file)', async () => {
    await expect(rendered.text).toMatchFileSnapshot('__snapshots__/helm-default.yaml');
  });

  it("serves the API behind a Service, scaled on CPU, with a PDB, ready on /readyz and alive on /healthz", () => {
    const { manifests } = rendered;
    const api = podSpecOf(find(manifests, 'Deployment', 'api')!).containers[0]!;
    const routes = healthRoutes.map((route) => route.path);
    expect(routes).toContain(api.readinessProbe?.httpGet?.path);
    expect(routes).toContain(api.livenessProbe?.httpGet?.path);
    expect([api.readinessProbe?.httpGet?.path, api.livenessProbe?.httpGet?.path]).toEqual(['/readyz', '/healthz']);
    expect(find(manifests, 'Service', 'api')).toBeDefined();
    expect(find(manifests, 'PodDisruptionBudget', 'api')).toBeDefined();
    const hpa = find(manifests, 'HorizontalPodAutoscaler', 'api')!.spec as { metrics: Array<{ resource: { name: string } }> };
    expect(hpa.metrics.map((metric) => metric.resource.name)).toEqual(['cpu']);
  });

  it('migrates in a pre-install/pre-upgrade hook Job, with the database settings only', () => {
    const job = find(rendered.manifests, 'Job', 'migrate')!;
    expect(job.metadata.annotations?.['helm.sh/hook']?.split(',').sort()).toEqual(['pre-install', 'pre-upgrade']);
    const container = podSpecOf(job).containers[0]!;
    expect(container.command?.join(' ')).toBe(scripts.scripts.migrate);
    const names = (container.env ?? []).map((variable) => variable.name);
    expect(names.filter((name) => !settingNames('migrate').includes(name))).toEqual([]);
    expect(names).toContain('DATABASE_URL');
  });

  it("gives the service's version as the chart's appVersion, the image tag by default", () => {
    const chart = readFileSync(resolve(chartDir, 'Chart.yaml'), 'utf8');
    expect(/^appVersion: "(.+)"$/m.exec(chart)?.[1]).toBe(scripts.version);
    const images = workloads(rendered.manifests).flatMap((manifest) => podSpecOf(manifest).containers.map((container) => (container as { image?: string }).image));
    expect(new Set(images)).toEqual(new Set([`richpush:${scripts.version}`]));
  });

  it("holds the workers' minimum grace period in the schema to the worker's shutdown grace", () => {
    const schema = JSON.parse(readFileSync(resolve(chartDir, 'values.schema.json'), 'utf8')) as {
      $defs: { worker: { properties: { terminationGracePeriodSeconds: { minimum: number } } } };
    };
    expect(schema.$defs.worker.properties.terminationGracePeriodSeconds.minimum).toBeGreaterThanOrEqual(workerShutdownGraceSeconds + 20);
  });
});

describe('the checks fail on what they must refuse', () => {
  it.each([
    ['fcm-without-account.yaml', '/push/fcm'],
    ['s3-without-bucket.yaml', '/storage/s3/bucket'],
    ['secret-in-plain-text.yaml', "invalid propertyName 'ADMIN_TOKEN'"],
  ])('values.schema.json refuses %s, in lint and in template', async (file, message) => {
    for (const outcome of [await lintChart(tools, [fixture(file)]), await templateChart(tools, [fixture(file)])]) {
      expect(outcome.code, outcome.output).not.toBe(0);
      expect(outcome.output).toContain(message);
    }
  });

  it("Kubernetes' schemas refuse a template that renders an invalid Deployment", async () => {
    const copy = await chartWithExtraTemplate(fixture('invalid-deployment.yaml'));
    try {
      const { manifests } = await renderChart(tools, [], copy.chart);
      const validation = await validateWithKubernetesSchemas(tools, manifests.filter((manifest) => !isKeda(manifest)));
      expect(validation.code).not.toBe(0);
      expect(validation.output).toMatch(/richpush-invalid/);
    } finally {
      await copy.remove();
    }
  });

  it("KEDA's schema refuses a template that renders an invalid ScaledObject", async () => {
    const copy = await chartWithExtraTemplate(fixture('invalid-scaledobject.yaml'));
    try {
      const { manifests } = await renderChart(tools, [], copy.chart);
      const scaledObject = manifests.find((manifest) => manifest.kind === 'ScaledObject')!;
      expect(scaledObject.metadata.name).toBe('richpush-invalid');
      expect(() => new ScaledObject(scaledObject as never).validate()).toThrow(/scaleTargetRef|type/);
    } finally {
      await copy.remove();
    }
  });
});

describe('Dockerfile', () => {
  it('passes hadolint (.hadolint.yaml)', async () => {
    const outcome = await runTool(tools.hadolint, ['--no-color', '--config', resolve(repositoryRoot, '.hadolint.yaml'), resolve(repositoryRoot, 'Dockerfile')]);
    expect(outcome.code, outcome.output).toBe(0);
  });

  it('fails hadolint when broken', async () => {
    const outcome = await runTool(tools.hadolint, ['--no-color', resolve(repositoryRoot, 'test/fixtures/docker/Dockerfile.invalid')]);
    expect(outcome.code).not.toBe(0);
    expect(outcome.output).toMatch(/DL3007/);
    expect(outcome.output).toMatch(/DL3003/);
  });
});

describe('the chart with worker versioning mid-rollout (test/fixtures/helm/versioned.yaml)', () => {
  let manifests: Manifest[];
  beforeAll(async () => {
    manifests = (await renderChart(tools, [fixture('versioned.yaml')])).manifests;
  });

  it("runs each build's workers as that build's version of the worker deployment, from that build's image", () => {
    const workers = manifests.filter((manifest) => manifest.kind === 'Deployment' && component(manifest)?.startsWith('worker-'));
    const versions = workers.map((deployment) => {
      const container = podSpecOf(deployment).containers[0] as Container & { image: string };
      const config = loadConfig('worker', environmentOf(container));
      expect(container.image).toBe(`richpush:${config.WORKER_BUILD_ID}`);
      return `${config.WORKER_DEPLOYMENT_NAME}:${config.WORKER_BUILD_ID}:${config.WORKER_ROLE}`;
    });
    expect(versions.sort()).toEqual(['richpush:0.2.0:bulk', 'richpush:0.2.0:interactive', 'richpush:0.3.0:bulk', 'richpush:0.3.0:interactive']);
  });

  it('promotes the new build after the upgrade, with npm run deployment:promote', () => {
    const job = find(manifests, 'Job', 'promote')!;
    expect(job.metadata.annotations?.['helm.sh/hook']?.split(',').sort()).toEqual(['post-install', 'post-upgrade']);
    const container = podSpecOf(job).containers[0]!;
    expect(container.command?.join(' ')).toBe(scripts.scripts['deployment:promote']);
    const config = loadConfig('promote', environmentOf(container));
    expect([config.WORKER_DEPLOYMENT_NAME, config.WORKER_BUILD_ID]).toEqual(['richpush', '0.3.0']);
  });

  it('promotes nothing and pins nothing without versioning', async () => {
    const unversioned = (await renderChart(tools, [])).manifests;
    expect(find(unversioned, 'Job', 'promote')).toBeUndefined();
    const env = workloads(unversioned).flatMap((manifest) => podSpecOf(manifest).containers.flatMap((container) => container.env ?? []));
    expect(env.filter((variable) => variable.name.startsWith('WORKER_DEPLOYMENT') || variable.name === 'WORKER_BUILD_ID')).toEqual([]);
  });
});
