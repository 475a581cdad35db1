import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { seaweedFs } from './cli-path.ts';
import { sessionLauncher } from './detached-launch.ts';
import { freePort } from './free-port.ts';
import { provisionOnThisMachine } from './provision-cli.ts';
import { exitOf, stopProcess, tailOf } from './server-process.ts';

/** A running SeaweedFS: what the S3 storage driver needs to reach its bucket (`createStorage({ driver: 's3', ...s3 })`). */
export interface SeaweedFsServer {
  s3: { endpoint: string; region: string; bucket: string; forcePathStyle: true; credentials: { accessKeyId: string; secretAccessKey: string } };
  /** The `weed` binary it runs. */
  binaryPath: string;
  /** Stops the server and removes its data. */
  stop: () => Promise<void>;
}

export interface SeaweedFsOptions {
  /** The bucket to create; `richpush-test` when absent. */
  bucket?: string;
  /** Where the lookup of `weed` reports its steps; stderr when absent. */
  progress?: (line: string) => void;
  /** The environment `weed` is looked up in (SEAWEEDFS_PATH, PATH, the cache); this process's when absent. */
  env?: NodeJS.ProcessEnv;
  /** How long the server may take to answer; 60 s when absent. */
  startTimeoutMs?: number;
}

/** SeaweedFS's S3 gateway accepts any region; the SDK needs one to sign with. */
const region = 'us-east-1';

/**
 * Runs `weed mini` (master, volume server, filer and S3 gateway in one process) for the tests and benches, on free
 * loopback ports, with its data in a temporary folder, and one identity whose keys are made here: every request must
 * be signed with them, as on S3 (an unsigned or wrongly signed one is refused, a presigned URL expires). Creates the
 * bucket, which also shows the server answers. The binary is found or installed like the Temporal CLI
 * (src/dev/provision-cli.ts, `SEAWEEDFS_PATH`). The server runs as a session of its own, stopped once this process
 * is gone however it ended (src/dev/detached-launch.ts).
 */
export async function startSeaweedFs(options: SeaweedFsOptions = {}): Promise<SeaweedFsServer> {
  const binaryPath = await provisionOnThisMachine(seaweedFs, options.progress, options.env);
  const scratch = await mkdtemp(join(tmpdir(), 'rp-seaweedfs-'));
  const credentials = { accessKeyId: `RP${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(24).toString('base64url') };
  const bucket = options.bucket ?? 'richpush-test';
  const ports = await distinctFreePorts(10);
  const s3Port = ports[6]!;
  const endpoint = `http://127.0.0.1:${s3Port}`;

  const identities = {
    identities: [
      { name: 'richpush', credentials: [{ accessKey: credentials.accessKeyId, secretKey: credentials.secretAccessKey }], actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'] },
    ],
  };
  const configPath = join(scratch, 's3-identities.json');
  await writeFile(configPath, JSON.stringify(identities), { mode: 0o600 });
  const dataDir = join(scratch, 'data');
  const logDir = join(scratch, 'logs');
  await Promise.all([mkdir(dataDir), mkdir(logDir)]);

  const launcher = sessionLauncher(binaryPath, { parentPid: process.pid, quiet: true });
  const server = spawn('/bin/sh', ['-c', launcher, binaryPath, ...miniArguments({ dataDir, logDir, configPath, ports })], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: serverEnvironment(options.env ?? process.env),
    cwd: scratch,
  });
  const errors = tailOf(server);
  const stop = async () => {
    await stopProcess(server);
    await Promise.all([scratch, ...grpcSocketsOf(ports)].map((path) => rm(path, { recursive: true, force: true })));
  };
  const s3 = { endpoint, region, bucket, forcePathStyle: true as const, credentials };
  try {
    await untilBucketCreated(s3, exitOf(server), options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    const output = errors().trim();
    throw new Error(`SeaweedFS at ${endpoint} did not start: ${(error as Error).message}${output ? `\n${output}` : ''}`, { cause: error });
  }
  return { s3, binaryPath, stop };
}

/**
 * `weed mini`'s arguments: every listener on loopback and on a port of its own (the defaults, 8333 and the rest, may
 * be taken, and two test files each run a server), the optional gateways off, no telemetry, logs in the scratch folder.
 */
function miniArguments(options: { dataDir: string; logDir: string; configPath: string; ports: number[] }): string[] {
  const [master, masterGrpc, volume, volumeGrpc, filer, filerGrpc, s3, s3Grpc, admin, adminGrpc] = options.ports.map(String);
  return [
    `-logdir=${options.logDir}`,
    '-alsologtostderr=false',
    '-stderrthreshold=ERROR',
    'mini',
    `-dir=${options.dataDir}`,
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    `-master.port=${master}`,
    `-master.port.grpc=${masterGrpc}`,
    '-master.telemetry=false',
    // Small volumes: the tests write megabytes, not the gigabyte a volume would otherwise reserve room for.
    '-master.volumeSizeLimitMB=64',
    `-volume.port=${volume}`,
    `-volume.port.grpc=${volumeGrpc}`,
    '-volume.preStopSeconds=0',
    `-filer.port=${filer}`,
    `-filer.port.grpc=${filerGrpc}`,
    `-filer.localSocket=${join(options.dataDir, 'filer.sock')}`,
    `-s3.port=${s3}`,
    `-s3.port.grpc=${s3Grpc}`,
    `-s3.localSocket=${join(options.dataDir, 's3.sock')}`,
    `-s3.config=${options.configPath}`,
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    `-admin.port=${admin}`,
    `-admin.port.grpc=${adminGrpc}`,
    '-admin.ui=false',
    '-webdav=false',
  ];
}

/**
 * The caller's environment without the variables `weed mini` would take as settings: AWS_* keys would add an
 * identity beside the one configured here, and S3_BUCKET a bucket.
 */
function serverEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('AWS_') && !name.startsWith('S3_')));
}

/**
 * The gRPC sockets `weed` makes in /tmp whatever its flags say (`/tmp/seaweedfs-<part>-grpc-<port>.sock`), named by
 * this server's ports; it leaves some behind when it stops.
 */
function grpcSocketsOf(ports: number[]): string[] {
  const [, masterGrpc, , volumeGrpc, , filerGrpc, , s3Grpc, , adminGrpc] = ports;
  const byPart = { master: masterGrpc, volume: volumeGrpc, filer: filerGrpc, s3: s3Grpc, admin: adminGrpc };
  return Object.entries(byPart).map(([part, port]) => `/tmp/seaweedfs-${part}-grpc-${port}.sock`);
}

/** `count` loopback ports nothing listens on now, all different. */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Creates the bucket once the gateway answers, failing at the deadline or as soon as the process exits. */
async function untilBucketCreated(s3: SeaweedFsServer['s3'], exited: Promise<never>, timeoutMs: number): Promise<void> {
  const client = new S3Client({ ...s3, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const created = await Promise.race([createBucket(client, s3.bucket), exited]);
      if (created === true) return;
      if (Date.now() > deadline) throw new Error(`it did not create the bucket within ${timeoutMs / 1000} s: ${created.message}`);
      await Promise.race([sleep(200), exited]);
    }
  } finally {
    client.destroy();
  }
}

async function createBucket(client: S3Client, bucket: string): Promise<true | Error> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }), { abortSignal: AbortSignal.timeout(5000) });
    return true;
  } catch (error) {
    return (error as Error).name === 'BucketAlreadyOwnedByYou' ? true : (error as Error);
  }
}
