import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { z } from 'zod';
import { storedJson } from '../stored-json.ts';
import { Account } from './account.ts';

const frequencyCapSchema = z.object({ max: z.number(), hours: z.number() });
export type FrequencyCap = z.infer<typeof frequencyCapSchema>;

/** Local wall-clock times (`HH:MM`) in each device's zone; `delay` holds a push until they end, `skip` drops it. */
const quietHoursSchema = z.object({ start: z.string(), end: z.string(), action: z.enum(['delay', 'skip']) });
export type QuietHours = z.infer<typeof quietHoursSchema>;

/** An application of an account; messages, jobs and tests belong to one. */
export const App = defineEntity({
  name: 'App',
  tableName: 'apps',
  properties: {
    id: p.uuid().primary(),
    accountId: () => p.manyToOne(Account).mapToPk().fieldName('account_id').index(),
    name: p.string().length(200),
    /** The IANA time zone of the app's devices that do not name one (sends in local time, quiet hours). */
    defaultTimezone: p.string().length(64).default('UTC').fieldName('default_timezone'),
    /** At most `max` non-test pushes per device in any `hours`, across the app's sends; null for no cap. */
    frequencyCap: storedJson(frequencyCapSchema).nullable().fieldName('frequency_cap'),
    /** No push reaches a device in these local hours (campaign sends and experiences' pushes); null for none. */
    quietHours: storedJson(quietHoursSchema).nullable().fieldName('quiet_hours'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type App = InferEntity<typeof App>;
