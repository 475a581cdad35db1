import { JsonType, p, type Platform, type TransformContext } from '@mikro-orm/core';
import { z } from 'zod';

/**
 * A jsonb column read back into something other than its schema's shape: a row written by older code, by hand, or
 * by a bug. Thrown while the row is loaded, naming the column and what is wrong, so the fault shows where it is
 * rather than as an `undefined` far from the read.
 */
export class StoredJsonError extends Error {
  override name = 'StoredJsonError';
}

/** MikroORM's jsonb mapping, with every value read back parsed by its zod schema. */
export class ParsedJsonType<T> extends JsonType {
  // A function, not the schema itself: MikroORM deep-copies a property's type object, which a zod schema does not
  // survive, while a function is copied as the same function.
  readonly parse: (json: unknown) => z.ZodSafeParseResult<T>;

  constructor(parse: (json: unknown) => z.ZodSafeParseResult<T>) {
    super();
    this.parse = parse;
  }

  override convertToJSValue(value: unknown, platform: Platform, context?: TransformContext): T | null {
    const json = super.convertToJSValue(value, platform, context);
    if (json === null || json === undefined) return null;
    const parsed = this.parse(json);
    if (parsed.success) return parsed.data;
    // MikroORM gives a type its entity's and property's metadata when it discovers the entity.
    const column = `${this.meta?.tableName ?? 'a table'}.${this.prop?.fieldNames?.[0] ?? 'a jsonb column'}`;
    throw new StoredJsonError(`${column} holds a value of the wrong shape:\n${z.prettifyError(parsed.error)}`);
  }
}

/**
 * A jsonb property whose stored value is parsed with `schema` each time it is loaded: what is read back is the
 * schema's output, never a cast. The one home of a stored shape is its schema.
 */
export const storedJson = <S extends z.ZodType>(schema: S) =>
  p.type(new ParsedJsonType((json): z.ZodSafeParseResult<z.output<S>> => schema.safeParse(json))).$type<z.output<S>>();

/** A JSON object whose fields are the client's own (attributes, a raw payload): an object is all that is known of it. */
export const jsonObjectSchema = z.record(z.string(), z.unknown());
