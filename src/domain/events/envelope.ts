import type { EventType } from './event-types.ts';

/** The versioned outbound envelope (version 1). Event-specific payload goes under `data.result`. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  timestamp: string;
  accountId: string;
  experienceId?: string;
  data: {
    clientUserId?: string;
    visitorId?: string | null;
    attributes?: Record<string, unknown>;
    result?: Record<string, unknown>;
  };
}

export interface EventInput {
  accountId: string;
  type: EventType;
  experienceId?: string | undefined;
  data: EventEnvelope['data'];
}

export function buildEnvelope(id: string, input: EventInput, occurredAt: Date): EventEnvelope {
  return {
    id,
    type: input.type,
    timestamp: occurredAt.toISOString(),
    accountId: input.accountId,
    ...(input.experienceId ? { experienceId: input.experienceId } : {}),
    data: input.data,
  };
}
