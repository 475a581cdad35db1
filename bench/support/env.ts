/** A whole-number setting from the environment, or `fallback` when unset; throws on anything else. */
export function positiveInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be a whole number >= ${min}, got "${raw}"`);
  return value;
}

/** One of `options` from the environment, or `fallback` when unset; throws on anything else. */
export function choice<T extends string>(name: string, options: readonly T[], fallback: T): T {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(options as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${options.join(', ')}, got "${raw}"`);
  return raw as T;
}
