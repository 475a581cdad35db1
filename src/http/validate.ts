import type { z } from 'zod';
import { formatDetailPath, validationFailed, withoutLooserBounds, type ErrorDetail } from '../domain/errors.ts';
import { assertStorableText } from './storable-text.ts';

/**
 * Parses one part of a request; every problem is reported with its place, e.g. `body.title` or `query.limit`. Text
 * that cannot be stored (NUL, a lone surrogate, anywhere, keys included) is refused first, whatever the schema says.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, place: 'params' | 'query' | 'body'): z.output<S> {
  assertStorableText(value, place);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = withoutLooserBounds(result.error.issues).map((issue) => ({
    path: formatDetailPath(place, issue.path),
    message: issue.message,
  }));
  throw validationFailed(details);
}
