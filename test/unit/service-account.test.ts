import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { googleTokenUri, readServiceAccount } from '../../src/outbound/push/service-account.ts';
import { writeServiceAccount, type TestServiceAccount } from '../support/fcm.ts';

let account: TestServiceAccount;
beforeAll(async () => {
  account = await writeServiceAccount({ token_uri: 'https://oauth2.internal.example/token' });
});
afterAll(() => account.remove());

/** The ConfigError readServiceAccount throws for a file, as its one line. */
function refusal(file: string): string {
  try {
    readServiceAccount(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`${file} was accepted`);
}

describe('reading the FCM service account key file', () => {
  it('reads project, account, key and token_uri', () => {
    expect(readServiceAccount(account.file)).toEqual({
      projectId: 'richpush-test',
      clientEmail: 'push-sender@richpush-test.iam.gserviceaccount.com',
      privateKey: account.privateKey,
      tokenUri: 'https://oauth2.internal.example/token',
    });
  });

  it('uses Google’s token endpoint when the file names none', async () => {
    const { token_uri: _dropped, ...rest } = account.json;
    const file = await account.writeVariant('no-token-uri.json', JSON.stringify(rest));
    expect(readServiceAccount(file).tokenUri).toBe(googleTokenUri);
  });

  it.each<[string, (json: Record<string, unknown>) => string, RegExp]>([
    ['not JSON', () => '{"private_key": "', /is not JSON$/],
    ['not an object', () => '[]', /is not a JSON object$/],
    ['without project and account', ({ project_id: _p, client_email: _c, ...rest }) => JSON.stringify(rest), /is not a service account key \(project_id is missing or empty, client_email is missing or empty\)$/],
    ['with a token_uri over http', (json) => JSON.stringify({ ...json, token_uri: 'http://oauth2.googleapis.com/token' }), /\(token_uri is not an https URL\)$/],
    ['with a private key that is no key', (json) => JSON.stringify({ ...json, private_key: `${String(json.private_key).slice(0, 200)}broken` }), /has a private_key that is not a PEM private key$/],
  ])('refuses a file %s, in one line naming FCM_SERVICE_ACCOUNT_FILE and never the key', async (name, contents, reason) => {
    const file = await account.writeVariant(`${name.replaceAll(' ', '-')}.json`, contents(account.json));
    const message = refusal(file);
    expect(message).toMatch(new RegExp(`^Configuration error: FCM_SERVICE_ACCOUNT_FILE is invalid: ${file} `));
    expect(message).toMatch(reason);
    expect(message).not.toContain('\n');
    expect(message).not.toContain('PRIVATE KEY');
  });

  it('refuses a file it cannot read', () => {
    expect(refusal('/nonexistent/service-account.json')).toBe('Configuration error: FCM_SERVICE_ACCOUNT_FILE is invalid: /nonexistent/service-account.json cannot be read (ENOENT)');
  });
});
