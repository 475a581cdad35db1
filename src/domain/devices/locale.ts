import { z } from 'zod';

export const maxLocaleLength = 35;

/** The BCP 47 tag in canonical form (`en_gb` → `en-GB`), or undefined when it is not one. */
export function canonicalLocale(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag.replaceAll('_', '-'));
    return canonical !== undefined && canonical.length <= maxLocaleLength ? canonical : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A locale as devices report it: a BCP 47 tag, with `_` accepted for `-` (Android's and iOS's own form). Stored and
 * compared in canonical form, so a rule `locale eq "en_gb"` finds devices that sent `en-GB`.
 */
export const localeSchema = z
  .string()
  .max(maxLocaleLength)
  .transform((tag, ctx) => {
    const canonical = canonicalLocale(tag);
    if (canonical === undefined) ctx.addIssue({ code: 'custom', message: 'must be a BCP 47 language tag such as en-GB', input: tag });
    return canonical ?? tag;
  })
  .meta({ description: 'A BCP 47 language tag such as `en-GB` (`en_GB` is accepted); stored in canonical form.' });
