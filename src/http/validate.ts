import type { z } from 'zod';
import { validationFailed, type ErrorDetail } from '../domain/errors.ts';

/** Parses one part of a request; every problem is reported with its place, e.g. `body.title` or `query.limit`. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, place: 'params' | 'query' | 'body'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({
    path: [place, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw validationFailed(details);
}
