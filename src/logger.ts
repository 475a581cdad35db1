import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs. Credentials never reach a log line, even if a caller passes them by mistake. */
export function createLogger(level: string, name = 'richpush'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['authorization', '*.authorization', 'headers.authorization', 'apiKey', '*.apiKey', 'secret', '*.secret', 'password', '*.password', 'adminToken'],
      censor: '[redacted]',
    },
  });
}
