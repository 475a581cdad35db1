import { generateKeyPairSync } from 'node:crypto';

/**
 * A throwaway Firebase service account key: a fresh RSA key in the JSON Google hands out, for a fake FCM (tests,
 * benches, `npm start` with PUSH_PROVIDER=fake-fcm). `fields` replace or add fields, e.g. a `token_uri` pointing at
 * the fake's token endpoint. `publicKey` verifies the grants the FCM provider signs with it.
 */
export function fakeServiceAccount(fields: Record<string, unknown> = {}): { json: Record<string, unknown>; publicKey: string; privateKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const json = {
    type: 'service_account',
    project_id: 'richpush-test',
    private_key_id: 'key-1',
    private_key: privateKey,
    client_email: 'push-sender@richpush-test.iam.gserviceaccount.com',
    client_id: '100000000000000000001',
    token_uri: 'https://oauth2.googleapis.com/token',
    ...fields,
  };
  return { json, publicKey, privateKey };
}
