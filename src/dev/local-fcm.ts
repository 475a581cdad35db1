import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from '../logger.ts';
import type { PushSettings } from '../outbound/push/create-push-provider.ts';
import { startFakeFcm } from './fake-fcm.ts';
import { readFakeFcmScript, watchFakeFcmScript } from './fake-fcm-script.ts';
import { fakeServiceAccount } from './fake-service-account.ts';
import { generateLocalCertificate } from './local-certificate.ts';

/** The Firebase project `npm start`'s fake FCM sends for. */
const localProjectId = 'richpush-local';

export interface LocalFcm {
  /** The fake's base URL (https, loopback). */
  baseUrl: string;
  /** The script of its answers, read again whenever it changes. */
  scriptFile: string;
  /** The worker's push settings: the real FCM provider, pointed at the fake, trusting its certificate. */
  push: Extract<PushSettings, { provider: 'fcm' }>;
  stop(): Promise<void>;
}

/**
 * `npm start` with PUSH_PROVIDER=fake-fcm: the project's fake FCM (src/dev/fake-fcm.ts) on a loopback port, with a
 * certificate and a service account key of its own in `DATA_DIR/fake-fcm/`, so that pushes go through the real FCM
 * provider (OAuth grant, pace, retries, classification) to a server on this machine. Its answers follow
 * `DATA_DIR/fake-fcm.json` (src/dev/fake-fcm-script.ts; docs/campaigns.md): failed, unregistered, retried and slow
 * pushes, seen locally.
 */
export async function startLocalFcm(options: { dataDir: string; logger: Logger; concurrency: number; maxPerMinute: number }): Promise<LocalFcm> {
  const scriptFile = join(options.dataDir, 'fake-fcm.json');
  // A bad script stops the start here, with the file and what is wrong.
  const script = await readFakeFcmScript(scriptFile);
  const { cert, key } = await generateLocalCertificate();
  const account = fakeServiceAccount({ project_id: localProjectId, client_email: `push-sender@${localProjectId}.iam.gserviceaccount.com` });
  const fake = await startFakeFcm({ cert, key, projectId: localProjectId, publicKey: account.publicKey, answer: script });
  const serviceAccountFile = join(options.dataDir, 'fake-fcm', 'service-account.json');
  try {
    await mkdir(dirname(serviceAccountFile), { recursive: true });
    await writeFile(serviceAccountFile, JSON.stringify({ ...account.json, token_uri: fake.tokenUri }), { mode: 0o600 });
  } catch (error) {
    await fake.close();
    throw error;
  }
  const stopWatching = watchFakeFcmScript(scriptFile, (next) => fake.answer(next), options.logger);

  return {
    baseUrl: fake.baseUrl,
    scriptFile,
    push: { provider: 'fcm', serviceAccountFile, baseUrl: fake.baseUrl, concurrency: options.concurrency, maxPerMinute: options.maxPerMinute, ca: cert },
    async stop() {
      stopWatching();
      await fake.close();
    },
  };
}
