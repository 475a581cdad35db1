import { z } from 'zod';
import type { Stock } from '../../persistence/entities/stock.ts';
import { messageBodyFields, notificationSchema } from '../notifications/schemas.ts';
import { fileIdSchema } from '../files/schemas.ts';
import { pageOf, paginationQuery, timestamp, trimmedText } from '../shared-schemas.ts';

export const createStockBody = z
  .strictObject({
    appId: z.uuid(),
    title: trimmedText(200),
    fileId: fileIdSchema.optional().meta({ description: 'A file of the app, uploaded with POST /file/upload.' }),
    url: z
      .url({ protocol: /^https$/, error: 'must be an https URL' })
      .max(2048)
      .optional()
      .meta({ description: 'Kept for compatibility: the service fetches it (public addresses only) and checks it like an upload.' }),
    richPushLevel: z.string().regex(/^[A-Z][A-Z_]{0,31}$/, 'must be an upper-case token such as TORSO').optional(),
  })
  .refine((stock) => (stock.fileId === undefined) !== (stock.url === undefined), { message: 'send fileId or url, one of them', path: ['fileId'] })
  .meta({ id: 'CreateStock', description: 'One of `fileId` and `url`.' });

export const stockSchema = z
  .object({
    stockId: z.uuid(),
    appId: z.uuid(),
    title: z.string(),
    url: z.string().meta({ description: 'Where its file plays (the file’s `url`).' }),
    fileId: z.string().nullable().meta({ description: 'Its file (GET /file/get); null for stock added before the service held files.' }),
    richPushLevel: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'Stock' });

export const listStockQuery = z.object({ appId: z.uuid().optional(), ...paginationQuery });
export const stockPage = pageOf(stockSchema).meta({ id: 'StockPage' });

/**
 * The from-stock body: the message create body, field for field. The spec's from-stock body lacks filterId, priority,
 * favourite and channel; they are optional here as on create, with the same defaults.
 */
export const slotFromStockBody = z.strictObject(messageBodyFields).meta({ id: 'CreateSlotFromStock' });
export const stockIdQuery = z.object({ stockId: z.uuid() });

export const slotSchema = z
  .object({ slotId: z.uuid(), stockId: z.uuid(), notification: notificationSchema })
  .meta({ id: 'Slot' });

export const toStockResponse = (stock: Stock): z.infer<typeof stockSchema> => ({
  stockId: stock.id,
  appId: stock.appId,
  title: stock.title,
  url: stock.url,
  fileId: stock.fileId ?? null,
  richPushLevel: stock.richPushLevel ?? null,
  createdAt: stock.createdAt.toISOString(),
});
