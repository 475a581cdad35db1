import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeServiceAccount } from '../../src/dev/fake-service-account.ts';
import type { PushMessage } from '../../src/outbound/push/push-provider.ts';

export interface TestServiceAccount {
  /** The key file, as FCM_SERVICE_ACCOUNT_FILE names it. */
  file: string;
  json: Record<string, unknown>;
  /** Verifies the JWT grants the provider signs. */
  publicKey: string;
  privateKey: string;
  /** Writes other contents to another file in the same folder; returns its path. */
  writeVariant(name: string, contents: string): Promise<string>;
  remove(): Promise<void>;
}

/**
 * A throwaway Firebase service account key file (src/dev/fake-service-account.ts), written to a temporary folder.
 * `fields` replace or add fields of the JSON (e.g. `token_uri` pointing at a local fake of the token endpoint).
 */
export async function writeServiceAccount(fields: Record<string, unknown> = {}): Promise<TestServiceAccount> {
  const { json, publicKey, privateKey } = fakeServiceAccount(fields);
  const folder = await mkdtemp(join(tmpdir(), 'rp-fcm-'));
  const file = join(folder, 'service-account.json');
  await writeFile(file, JSON.stringify(json), { mode: 0o600 });
  return {
    file,
    json,
    publicKey,
    privateKey,
    async writeVariant(name, contents) {
      const path = join(folder, name);
      await writeFile(path, contents, { mode: 0o600 });
      return path;
    },
    remove: () => rm(folder, { recursive: true, force: true }),
  };
}

/** FCM's error body: `{ error: { code, message, status, details: [{ errorCode }] } }`. */
export const fcmErrorBody = (code: number, status: string, message: string, errorCode?: string) =>
  JSON.stringify({
    error: { code, message, status, details: errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] : [] },
  });

/** A plain push to one token, as the send engine hands it to a provider; its send id names the token unless given. */
export const pushTo = (token: string, { sendId = `send-${token}`, data }: { sendId?: string; data?: Record<string, string> } = {}): PushMessage => ({
  sendId,
  token,
  platform: 'android',
  notification: { notificationId: 'n-1', title: 'Hello', text: 'Tap to listen', action: 'Open', type: 'PUSH', priority: 'NORMAL', expiry: 1440 },
  ...(data ? { data } : {}),
});
