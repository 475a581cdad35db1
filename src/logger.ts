import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Names under which a credential may sit in a logged object; each is redacted at the top and one level down. */
const secretKeys = [
  'authorization',
  'Authorization',
  'apiKey',
  'secret',
  'signingSecret',
  'previousSecret',
  'outboundCredential',
  'writeKey',
  'password',
  'adminToken',
  'privateKey',
  'private_key',
  'databaseUrl',
  'DATABASE_URL',
  'secretsKey',
  'SECRETS_KEY',
];

/** Where HTTP clients keep request headers on the errors they throw (`err` is pino's error key). */
const headerPaths = ['headers', '*.headers', 'err.config.headers', 'err.request.headers', 'err.options.headers'].flatMap((at) => [
  `${at}.authorization`,
  `${at}.Authorization`,
]);

export const redactedPaths = [...secretKeys.flatMap((key) => [key, `*.${key}`]), ...headerPaths];

/**
 * Structured JSON logs. Credentials never reach a log line, even if a caller passes them by mistake: a safety net,
 * as log calls pass small objects and errors, never whole requests, rows or settings. `destination` is for tests.
 */
export function createLogger(level: string, name = 'richpush', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: redactedPaths, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
