import { pino, type Logger } from 'pino';

/** A structured logger that writes to stderr, so stdout carries only the figures. Level from LOG_LEVEL (warn). */
export function createBenchLogger(): Logger {
  return pino({ name: 'bench', level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination({ fd: 2, sync: true }));
}
