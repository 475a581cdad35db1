import type { EventConfig } from '../../persistence/entities/connection.ts';

export const defaultEventConfig: EventConfig = { createVisitors: true, holdTtlHours: 168 };

/** Fills an event configuration's defaults; a PATCH merges its fields over the stored ones. */
export const withEventConfigDefaults = (config: Partial<EventConfig> | undefined, base: EventConfig = defaultEventConfig): EventConfig => ({
  ...base,
  ...Object.fromEntries(Object.entries(config ?? {}).filter(([, value]) => value !== undefined)),
});
