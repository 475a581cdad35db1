import { z } from 'zod';
import { timestamp } from '../shared-schemas.ts';

export const openConsoleSessionBody = z
  .strictObject({
    apiKey: z.string().min(1).max(200).meta({ description: 'The account’s API key (`rpk_…`), posted once: the console keeps only the session cookie.' }),
  })
  .meta({ id: 'OpenConsoleSession' });

const temporalUiSchema = z
  .object({ url: z.url(), namespace: z.string() })
  .nullable()
  .meta({ description: 'The Temporal UI (`TEMPORAL_UI_URL`) and namespace the console links runs to; null when the service has no UI address.' });

export const consoleSessionSchema = z
  .object({
    accountId: z.uuid(),
    expiresAt: timestamp.meta({ description: 'When the console session ends: 12 h after sign-in, never extended.' }),
    temporalUi: temporalUiSchema,
  })
  .meta({ id: 'ConsoleSession' });

export const consoleSessionStateSchema = z
  .discriminatedUnion('signedIn', [
    consoleSessionSchema.extend({ signedIn: z.literal(true) }),
    z.object({ signedIn: z.literal(false) }),
  ])
  .meta({ id: 'ConsoleSessionState' });
