import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../../config.ts';

/** Where Google's service account keys send the JWT grant; the default when a key file names no token_uri. */
export const googleTokenUri = 'https://oauth2.googleapis.com/token';

/** The fields of a Firebase service account key file the FCM provider uses. */
export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  tokenUri: string;
}

const keyFile = z.object({
  project_id: z.string().min(1),
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  token_uri: z.url({ protocol: /^https$/ }).optional(),
});

/**
 * Reads and checks the key file once, when the worker starts, so a wrong file stops the start with one line
 * naming FCM_SERVICE_ACCOUNT_FILE. The messages name fields, never their values: the file holds a private key.
 */
export function readServiceAccount(file: string): ServiceAccount {
  const problem = (why: string) => new ConfigError(`Configuration error: FCM_SERVICE_ACCOUNT_FILE is invalid: ${file} ${why}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw problem(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw problem('is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw problem('is not a JSON object');
  const parsed = keyFile.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))];
    const reasons = fields.map((field) => (field === 'token_uri' ? 'token_uri is not an https URL' : `${field} is missing or empty`));
    throw problem(`is not a service account key (${reasons.join(', ')})`);
  }
  try {
    createPrivateKey(parsed.data.private_key);
  } catch {
    throw problem('has a private_key that is not a PEM private key');
  }
  return {
    projectId: parsed.data.project_id,
    clientEmail: parsed.data.client_email,
    privateKey: parsed.data.private_key,
    tokenUri: parsed.data.token_uri ?? googleTokenUri,
  };
}
