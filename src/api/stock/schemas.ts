import { z } from 'zod';
import type { Stock } from '../../persistence/entities/stock.ts';
import { messageBodyFields, notificationSchema } from '../notifications/schemas.ts';
import { pageOf, paginationQuery, timestamp, trimmedText } from '../shared-schemas.ts';

export const createStockBody = z
  .strictObject({
    appId: z.uuid(),
    title: trimmedText(200),
    url: z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2048),
    richPushLevel: z.string().regex(/^[A-Z][A-Z_]{0,31}$/, 'must be an upper-case token such as TORSO').optional(),
  })
  .meta({ id: 'CreateStock' });

export const stockSchema = z
  .object({ stockId: z.uuid(), appId: z.uuid(), title: z.string(), url: z.string(), richPushLevel: z.string().nullable(), createdAt: timestamp })
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
  richPushLevel: stock.richPushLevel ?? null,
  createdAt: stock.createdAt.toISOString(),
});
