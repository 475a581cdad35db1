import { z } from 'zod';

/** A cursor from a previous page: base64url of MikroORM's [createdAt, id] keyset, checked before it is used. */
const cursorKeys = z.tuple([z.iso.datetime({ offset: true }), z.string().min(1).max(64)]);

export const cursorParam = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'is not a cursor returned by this list', abort: true })
  .refine((value) => {
    try {
      return cursorKeys.safeParse(JSON.parse(Buffer.from(value, 'base64url').toString('utf8'))).success;
    } catch {
      return false;
    }
  }, 'is not a cursor returned by this list')
  .meta({ description: 'The `nextCursor` of the previous page.' });

export const paginationQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'Page size, 1 to 100 (default 20).' }),
  cursor: cursorParam.optional(),
};

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });

/** What String#trim removes, spelled out: `\s` means other characters in other regex engines (Python's, Rust's). */
const whitespace = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/**
 * A required name or title: at most `max` characters as sent, not blank, stored without surrounding whitespace. The
 * length is checked before trimming so that the OpenAPI document (maxLength, pattern) says exactly what is accepted.
 */
/** A page of records as the API answers it: each item through the resource's one mapper, and the cursor as it is. */
export const toPageResponse = <T, R>(page: { items: T[]; nextCursor: string | null }, toItem: (item: T) => R) => ({
  items: page.items.map((item) => toItem(item)),
  nextCursor: page.nextCursor,
});

export const trimmedText = (max: number) =>
  z.string().max(max).regex(new RegExp(`[^${whitespace}]`), 'must not be blank').trim();

export const timestamp = z.iso.datetime().meta({ description: 'ISO-8601 UTC' });
export const accountIdParam = z.object({ accountId: z.uuid() });

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** An IANA time zone name, as Node's Intl knows it (e.g. Europe/Berlin, UTC). */
export const timeZoneSchema = z.string().min(1).max(64).refine(isTimeZone, 'must be an IANA time zone such as Europe/London');
