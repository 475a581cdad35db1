import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers made inside test files log through the SDK's default console logger; keep only errors, unless asked.
try {
  Runtime.install({ logger: new DefaultLogger((process.env.TEST_TEMPORAL_LOG_LEVEL as 'ERROR' | undefined) ?? 'ERROR') });
} catch {
  // Already installed in this process.
}
