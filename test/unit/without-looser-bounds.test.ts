import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { withoutLooserBounds } from '../../src/domain/errors.ts';

const issuesOf = (schema: z.ZodType, value: unknown) => withoutLooserBounds(schema.safeParse(value).error!.issues).map(({ code, path, message }) => ({ code, path, message }));

describe('withoutLooserBounds: one detail per bound broken', () => {
  const schema = z.object({ n: z.number().int().min(1).max(10), s: z.string().max(3), list: z.array(z.number().int().max(5)) });

  it('keeps the schema’s own bound of a number past the safe-integer range, above and below', () => {
    expect(issuesOf(schema, { n: 1e30, s: 'ok', list: [] })).toEqual([{ code: 'too_big', path: ['n'], message: 'Too big: expected number to be <=10' }]);
    expect(issuesOf(schema, { n: -1e30, s: 'ok', list: [] })).toEqual([{ code: 'too_small', path: ['n'], message: 'Too small: expected number to be >=1' }]);
  });

  it('keeps every other issue, each at its own place', () => {
    expect(issuesOf(schema, { n: 1.5, s: 'long', list: [1e30, 9] })).toEqual([
      { code: 'invalid_type', path: ['n'], message: 'Invalid input: expected int, received number' },
      { code: 'too_big', path: ['s'], message: 'Too big: expected string to have <=3 characters' },
      { code: 'too_big', path: ['list', 0], message: 'Too big: expected number to be <=5' },
      { code: 'too_big', path: ['list', 1], message: 'Too big: expected number to be <=5' },
    ]);
  });
});
