import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers made inside test files log through the SDK's default console logger; keep only errors, unless asked. A test
// file that runs a worker or a test server imports this first (./temporal-worker.ts does), before the SDK's runtime
// starts; the others never load the SDK's worker package.
try {
  Runtime.install({ logger: new DefaultLogger((process.env.TEST_TEMPORAL_LOG_LEVEL as 'ERROR' | undefined) ?? 'ERROR') });
} catch {
  // Already installed in this process.
}
