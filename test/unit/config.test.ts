import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadEmbeddedConfig, requiredSettings } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { interactiveTaskQueueOf, serviceSettingsFrom } from '../../src/service/compose.ts';
import { storageSettingsFrom } from '../../src/storage/index.ts';
import { temporalAccessFrom } from '../../src/temporal/access.ts';

const validApi = {
  DATABASE_URL: 'postgres://u:p@db:5432/app',
  TEMPORAL_ADDRESS: 'temporal:7233',
  ADMIN_TOKEN: 'a'.repeat(32),
  SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
  PUBLIC_URL: 'https://push.example.com',
};

describe('configuration', () => {
  it('parses a valid api environment and applies defaults', () => {
    expect(loadConfig('api', validApi)).toEqual({
      ...validApi,
      PORT: 3000,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'richpush',
      TEMPORAL_TLS: false,
      LOG_LEVEL: 'info',
      DELIVERY_RETRY_INITIAL_MS: 5000,
      DELIVERY_RETRY_BACKOFF: 3,
      DELIVERY_MAX_ATTEMPTS: 12,
      DELIVERY_TIMEOUT_MS: 15000,
      ENDPOINT_DISABLE_AFTER_HOURS: 120,
      API_RATE_LIMIT_PER_SECOND: 100,
      API_RATE_LIMIT_BURST: 200,
      INGEST_RATE_LIMIT_PER_SECOND: 50,
      INGEST_RATE_LIMIT_BURST: 100,
      METRICS_HOST: '127.0.0.1',
      RECORDING_MAX_BYTES: 52_428_800,
      RECORDING_MAX_SECONDS: 120,
      STORAGE_DRIVER: 'local',
      DATA_DIR: '.data',
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: false,
      ARTIST_LINK_GRACE_HOURS: 72,
    });
  });

  it('puts recording jobs on <TEMPORAL_TASK_QUEUE>-interactive unless TEMPORAL_INTERACTIVE_TASK_QUEUE names a queue', () => {
    const queueOf = (env: Record<string, string>) =>
      interactiveTaskQueueOf(serviceSettingsFrom(loadConfig('worker', { ...validApi, ...env }), { databaseUrl: '', temporalAddress: '' }, createLogger('silent')));
    expect(queueOf({})).toBe('richpush-interactive');
    expect(queueOf({ TEMPORAL_TASK_QUEUE: 'bulk' })).toBe('bulk-interactive');
    expect(queueOf({ TEMPORAL_TASK_QUEUE: 'bulk', TEMPORAL_INTERACTIVE_TASK_QUEUE: 'jobs' })).toBe('jobs');
    expect(queueOf({ TEMPORAL_INTERACTIVE_TASK_QUEUE: 'richpush' })).toBe('richpush');
  });

  it('runs every worker role, all by default, and refuses to split one queue', () => {
    expect(loadConfig('worker', validApi).WORKER_ROLE).toBe('all');
    for (const role of ['all', 'bulk', 'interactive']) expect(loadConfig('worker', { ...validApi, WORKER_ROLE: role }).WORKER_ROLE).toBe(role);
    expect(() => loadConfig('worker', { ...validApi, WORKER_ROLE: 'jobs' })).toThrow(/^Configuration error: WORKER_ROLE is invalid: /);
    const oneQueue = { ...validApi, TEMPORAL_INTERACTIVE_TASK_QUEUE: 'richpush' };
    expect(loadConfig('worker', oneQueue).WORKER_ROLE).toBe('all');
    expect(() => loadConfig('worker', { ...oneQueue, WORKER_ROLE: 'bulk' })).toThrow(
      new ConfigError('Configuration error: WORKER_ROLE is invalid: must be all while TEMPORAL_INTERACTIVE_TASK_QUEUE is TEMPORAL_TASK_QUEUE (one queue cannot be split)'),
    );
  });

  it('names a missing variable in one line', () => {
    const { DATABASE_URL: _omitted, ...rest } = validApi;
    expect(() => loadConfig('api', rest)).toThrow(new ConfigError('Configuration error: DATABASE_URL is required'));
  });

  it('names each invalid variable and why', () => {
    let message = '';
    try {
      loadConfig('api', { ...validApi, PORT: '99999', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain('\n');
    expect(message).toMatch(/PORT is invalid/);
    expect(message).toMatch(/DATABASE_URL is invalid: must be a postgres:\/\/ URL/);
    expect(message).toMatch(/LOG_LEVEL is invalid/);
  });

  it('checks that SECRETS_KEY is 32 bytes of base64', () => {
    expect(() => loadConfig('worker', { ...validApi, SECRETS_KEY: 'c2hvcnQ=' })).toThrow(/SECRETS_KEY is invalid: must be 32 bytes/);
  });

  it('treats an empty variable as unset', () => {
    expect(() => loadConfig('worker', { ...validApi, TEMPORAL_ADDRESS: '' })).toThrow(/TEMPORAL_ADDRESS is required/);
  });

  it('requires nothing in embedded mode, and still validates what is given', () => {
    expect(loadEmbeddedConfig({})).toMatchObject({ PORT: 3000, DATA_DIR: '.data' });
    expect(() => loadEmbeddedConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN is invalid/);
  });

  it('requires PUBLIC_URL of the api and the worker, an http(s) URL whose trailing slash is dropped', () => {
    const { PUBLIC_URL: _omitted, ...withoutUrl } = validApi;
    expect(() => loadConfig('api', withoutUrl)).toThrow(new ConfigError('Configuration error: PUBLIC_URL is required'));
    expect(() => loadConfig('worker', withoutUrl)).toThrow(new ConfigError('Configuration error: PUBLIC_URL is required'));
    expect(loadConfig('worker', { ...validApi, PUBLIC_URL: 'https://example.com/richpush/' }).PUBLIC_URL).toBe('https://example.com/richpush');
    expect(() => loadConfig('api', { ...validApi, PUBLIC_URL: 'ftp://example.com' })).toThrow(/PUBLIC_URL is invalid: must be an http:\/\/ or https:\/\/ URL/);
    expect(() => loadConfig('api', { ...validApi, PUBLIC_URL: 'https://example.com/?x=1' })).toThrow(/PUBLIC_URL is invalid: must have no query or fragment/);
    // Embedded mode leaves it unset: src/main/start.ts puts the API's own address in its place.
    expect(loadEmbeddedConfig({}).PUBLIC_URL).toBeUndefined();
    expect(loadEmbeddedConfig({ ARTIST_LINK_GRACE_HOURS: '0' }).ARTIST_LINK_GRACE_HOURS).toBe(0);
    expect(() => loadConfig('api', { ...validApi, ARTIST_LINK_GRACE_HOURS: '-1' })).toThrow(/ARTIST_LINK_GRACE_HOURS is invalid/);
  });

  it('bounds the recording limits: a take of 2 to 300 s, so a delivery file stays under 5 MB', () => {
    const given = { ...validApi, RECORDING_MAX_SECONDS: '300', RECORDING_MAX_BYTES: '1048576' };
    expect(loadConfig('api', given)).toMatchObject({ RECORDING_MAX_SECONDS: 300, RECORDING_MAX_BYTES: 1_048_576 });
    expect(loadConfig('worker', given)).toMatchObject({ RECORDING_MAX_SECONDS: 300, RECORDING_MAX_BYTES: 1_048_576 });
    expect(loadEmbeddedConfig({})).toMatchObject({ RECORDING_MAX_SECONDS: 120, RECORDING_MAX_BYTES: 52_428_800 });
    expect(() => loadConfig('worker', { ...validApi, RECORDING_MAX_SECONDS: '301' })).toThrow(/^Configuration error: RECORDING_MAX_SECONDS is invalid: /);
    expect(() => loadConfig('worker', { ...validApi, RECORDING_MAX_SECONDS: '1' })).toThrow(/RECORDING_MAX_SECONDS is invalid/);
    expect(() => loadConfig('api', { ...validApi, RECORDING_MAX_BYTES: '50MB' })).toThrow(/RECORDING_MAX_BYTES is invalid/);
  });

  it('takes RECORDING_RETENTION_DAYS of 1 to 3650 (the worker)', () => {
    expect(loadConfig('worker', validApi).RECORDING_RETENTION_DAYS).toBe(30);
    expect(loadConfig('worker', { ...validApi, RECORDING_RETENTION_DAYS: '7' }).RECORDING_RETENTION_DAYS).toBe(7);
    expect(() => loadConfig('worker', { ...validApi, RECORDING_RETENTION_DAYS: '0' })).toThrow(/RECORDING_RETENTION_DAYS is invalid/);
    const settings = serviceSettingsFrom(loadConfig('worker', { ...validApi, RECORDING_RETENTION_DAYS: '7' }), { databaseUrl: '', temporalAddress: '' }, createLogger('silent'));
    expect(settings.files).toMatchObject({ retentionDays: 7, storage: { driver: 'local' }, media: { available: false } });
  });

  it('keeps files on local disk under DATA_DIR/files unless STORAGE_DRIVER is s3', () => {
    for (const config of [loadConfig('api', validApi), loadConfig('worker', validApi), loadEmbeddedConfig({})]) {
      expect(storageSettingsFrom(config)).toEqual({ driver: 'local', root: resolve('.data', 'files') });
    }
    expect(storageSettingsFrom(loadConfig('worker', { ...validApi, DATA_DIR: '/var/lib/richpush' }))).toEqual({ driver: 'local', root: '/var/lib/richpush/files' });
  });

  it('takes the S3 settings, and no credentials: those come from the AWS SDK', () => {
    const s3 = { STORAGE_DRIVER: 's3', S3_ENDPOINT: 'http://seaweedfs:8333', S3_REGION: 'eu-west-1', S3_BUCKET: 'richpush-recordings', S3_FORCE_PATH_STYLE: 'true' };
    for (const config of [loadConfig('api', { ...validApi, ...s3 }), loadConfig('worker', { ...validApi, ...s3 }), loadEmbeddedConfig(s3)]) {
      expect(storageSettingsFrom(config)).toEqual({ driver: 's3', endpoint: 'http://seaweedfs:8333', region: 'eu-west-1', bucket: 'richpush-recordings', forcePathStyle: true });
    }
    expect(storageSettingsFrom(loadConfig('api', { ...validApi, STORAGE_DRIVER: 's3', S3_BUCKET: 'recordings' }))).toEqual({
      driver: 's3',
      endpoint: undefined,
      region: 'us-east-1',
      bucket: 'recordings',
      forcePathStyle: false,
    });
    expect(loadConfig('api', { ...validApi, STORAGE_DRIVER: 's3', S3_BUCKET: 'recordings', S3_FORCE_PATH_STYLE: 'false' }).S3_FORCE_PATH_STYLE).toBe(false);
  });

  it.each<[string, NodeJS.ProcessEnv, string]>([
    ['s3 without a bucket', { STORAGE_DRIVER: 's3' }, 'Configuration error: S3_BUCKET is required when STORAGE_DRIVER is s3'],
    ['an unknown driver', { STORAGE_DRIVER: 'gcs' }, 'Configuration error: STORAGE_DRIVER is invalid'],
    ['a bucket name S3 refuses', { STORAGE_DRIVER: 's3', S3_BUCKET: 'My_Bucket' }, 'Configuration error: S3_BUCKET is invalid: must be an S3 bucket name'],
    ['an endpoint that is no URL', { STORAGE_DRIVER: 's3', S3_BUCKET: 'recordings', S3_ENDPOINT: 'seaweedfs:8333' }, 'Configuration error: S3_ENDPOINT is invalid'],
    ['a path style that is no yes or no', { S3_FORCE_PATH_STYLE: 'maybe' }, 'Configuration error: S3_FORCE_PATH_STYLE is invalid'],
  ])('refuses %s in one line naming the variable', (_name, env, expected) => {
    for (const load of [() => loadConfig('api', { ...validApi, ...env }), () => loadConfig('worker', { ...validApi, ...env }), () => loadEmbeddedConfig(env)]) {
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(expected);
    }
  });

  it('sends pushes through the log provider unless told otherwise', () => {
    expect(loadConfig('worker', validApi)).toMatchObject({ PUSH_PROVIDER: 'log', FCM_BASE_URL: 'https://fcm.googleapis.com', FCM_CONCURRENCY: 100, FCM_MAX_PER_MINUTE: 600_000 });
    expect(loadConfig('worker', validApi)).not.toHaveProperty('FCM_SERVICE_ACCOUNT_FILE');
    expect(loadEmbeddedConfig({})).toMatchObject({ PUSH_PROVIDER: 'log' });
  });

  it('takes the FCM settings', () => {
    const fcm = { PUSH_PROVIDER: 'fcm', FCM_SERVICE_ACCOUNT_FILE: '/run/secrets/fcm.json', FCM_BASE_URL: 'https://fcm-proxy.internal/', FCM_CONCURRENCY: '8' };
    expect(loadConfig('worker', { ...validApi, ...fcm })).toMatchObject({ ...fcm, FCM_CONCURRENCY: 8 });
  });

  it('takes the fake FCM in embedded mode only, with no FCM key file', () => {
    expect(loadEmbeddedConfig({ PUSH_PROVIDER: 'fake-fcm' })).toMatchObject({ PUSH_PROVIDER: 'fake-fcm' });
    expect(() => loadConfig('worker', { ...validApi, PUSH_PROVIDER: 'fake-fcm' })).toThrow('Configuration error: PUSH_PROVIDER is invalid');
  });

  it.each<[string, NodeJS.ProcessEnv, string]>([
    ['fcm without a key file', { PUSH_PROVIDER: 'fcm' }, 'Configuration error: FCM_SERVICE_ACCOUNT_FILE is required when PUSH_PROVIDER is fcm'],
    ['fcm with an empty key file name', { PUSH_PROVIDER: 'fcm', FCM_SERVICE_ACCOUNT_FILE: '' }, 'Configuration error: FCM_SERVICE_ACCOUNT_FILE is required when PUSH_PROVIDER is fcm'],
    ['an unknown provider', { PUSH_PROVIDER: 'apns' }, 'Configuration error: PUSH_PROVIDER is invalid'],
    ['an http base URL', { FCM_BASE_URL: 'http://fcm.googleapis.com' }, 'Configuration error: FCM_BASE_URL is invalid: must be an https:// URL'],
    ['no concurrency', { FCM_CONCURRENCY: '0' }, 'Configuration error: FCM_CONCURRENCY is invalid'],
  ])('refuses %s in one line naming the variable', (_name, env, expected) => {
    for (const load of [() => loadConfig('worker', { ...validApi, ...env }), () => loadEmbeddedConfig(env)]) {
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(expected);
    }
  });

  it('serves no metrics unless METRICS_PORT is set, and then on loopback unless METRICS_HOST says otherwise', () => {
    for (const config of [loadConfig('api', validApi), loadConfig('worker', validApi), loadEmbeddedConfig({})]) {
      expect(config).not.toHaveProperty('METRICS_PORT');
      expect(config).not.toHaveProperty('TEMPORAL_METRICS_PORT');
      expect(config.METRICS_HOST).toBe('127.0.0.1');
    }
    expect(loadConfig('worker', { ...validApi, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', TEMPORAL_METRICS_PORT: '9465' })).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_HOST: '0.0.0.0',
      TEMPORAL_METRICS_PORT: 9465,
    });
    // The API has no Temporal worker, so no SDK exporter of its own.
    expect(loadConfig('api', { ...validApi, TEMPORAL_METRICS_PORT: '9465' })).not.toHaveProperty('TEMPORAL_METRICS_PORT');
  });

  it.each<[string, () => unknown, string]>([
    ['the API port', () => loadConfig('api', { ...validApi, PORT: '3000', METRICS_PORT: '3000' }), 'METRICS_PORT is invalid: must differ from PORT'],
    ['the default API port', () => loadEmbeddedConfig({ METRICS_PORT: '3000' }), 'METRICS_PORT is invalid: must differ from PORT'],
    ['the SDK exporter port', () => loadConfig('worker', { ...validApi, METRICS_PORT: '9464', TEMPORAL_METRICS_PORT: '9464' }), 'TEMPORAL_METRICS_PORT is invalid: must differ from METRICS_PORT'],
    ['no port at all', () => loadConfig('worker', { ...validApi, METRICS_PORT: 'none' }), 'METRICS_PORT is invalid'],
  ])('refuses a metrics port that is %s, in one line', (_name, load, expected) => {
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`Configuration error: ${expected}`);
  });

  it('lists the settings each role must be given', () => {
    expect(requiredSettings('api')).toEqual(['ADMIN_TOKEN', 'DATABASE_URL', 'PUBLIC_URL', 'SECRETS_KEY', 'TEMPORAL_ADDRESS']);
    expect(requiredSettings('worker')).toEqual(['DATABASE_URL', 'PUBLIC_URL', 'SECRETS_KEY', 'TEMPORAL_ADDRESS']);
    expect(requiredSettings('migrate')).toEqual(['DATABASE_URL']);
  });

  it('connects to Temporal in plain text unless an API key, TLS or a client certificate is given', async () => {
    const plain = loadConfig('worker', validApi);
    expect(temporalAccessFrom(plain)).toEqual({});
    expect(temporalAccessFrom(loadConfig('api', { ...validApi, TEMPORAL_TLS: 'true' }))).toEqual({ tls: true });
    // An API key travels only over TLS.
    expect(temporalAccessFrom(loadConfig('api', { ...validApi, TEMPORAL_API_KEY: 'cloud-key' }))).toEqual({ apiKey: 'cloud-key', tls: true });
    const scratch = await mkdtemp(join(tmpdir(), 'rp-tls-'));
    try {
      await writeFile(join(scratch, 'client.crt'), 'CERT');
      await writeFile(join(scratch, 'client.key'), 'KEY');
      const files = { TEMPORAL_TLS_CERT_FILE: join(scratch, 'client.crt'), TEMPORAL_TLS_KEY_FILE: join(scratch, 'client.key') };
      const access = temporalAccessFrom(loadConfig('worker', { ...validApi, ...files }));
      expect(access).toEqual({ tls: { clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') } } });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('refuses a client certificate without its key, and a key without its certificate', () => {
    expect(() => loadConfig('api', { ...validApi, TEMPORAL_TLS_CERT_FILE: '/certs/tls.crt' })).toThrow('TEMPORAL_TLS_KEY_FILE is required when TEMPORAL_TLS_CERT_FILE is set');
    expect(() => loadConfig('worker', { ...validApi, TEMPORAL_TLS_KEY_FILE: '/certs/tls.key' })).toThrow('TEMPORAL_TLS_CERT_FILE is required when TEMPORAL_TLS_KEY_FILE is set');
  });
});
