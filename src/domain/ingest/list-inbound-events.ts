import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { InboundEvent, type InboundEventStatus } from '../../persistence/entities/inbound-event.ts';
import { paginate, type Page } from '../../persistence/paginate.ts';

export function listInboundEvents(
  em: EntityManager,
  accountId: string,
  filter: { status?: InboundEventStatus | undefined; eventType?: string | undefined; clientUserId?: string | undefined; limit: number; cursor?: string | undefined },
): Promise<Page<InboundEvent>> {
  const where: FilterQuery<InboundEvent> = { accountId };
  if (filter.status) where.status = filter.status;
  if (filter.eventType) where.eventType = filter.eventType;
  if (filter.clientUserId) where.clientUserId = filter.clientUserId;
  return paginate(em, InboundEvent, where, filter);
}
