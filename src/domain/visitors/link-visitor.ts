import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { Visitor } from '../../persistence/entities/visitor.ts';
import { lockPerson } from '../../persistence/person-lock.ts';
import { visitorLinked } from '../../../workflows/ingest-event.contract.ts';

export interface VisitorDetails {
  attributes?: Record<string, unknown> | undefined;
  email?: string | undefined;
  phone?: string | undefined;
}

/** The visitor with this clientUserId, created or updated with the details (attributes merge, contacts replace). */
export async function upsertVisitor(tx: EntityManager, accountId: string, clientUserId: string, details: VisitorDetails): Promise<{ visitor: Visitor; created: boolean }> {
  const existing = await tx.findOne(Visitor, { accountId, clientUserId });
  const visitor = existing ? mergeVisitorDetails(existing, details) : createVisitor(tx, accountId, clientUserId, details);
  await tx.flush();
  return { visitor, created: !existing };
}

/** Brings the details onto a managed visitor, unflushed: attributes merge, contacts replace. */
export function mergeVisitorDetails(visitor: Visitor, details: VisitorDetails): Visitor {
  if (details.attributes) visitor.attributes = { ...visitor.attributes, ...details.attributes };
  if (details.email) visitor.email = details.email;
  if (details.phone) visitor.phone = details.phone;
  return visitor;
}

/** A new visitor with the details, managed by `tx` and written at its next flush. */
export function createVisitor(tx: EntityManager, accountId: string, clientUserId: string, details: VisitorDetails): Visitor {
  return tx.create(Visitor, {
    id: randomUUID(),
    accountId,
    clientUserId,
    attributes: details.attributes ?? {},
    email: details.email ?? null,
    phone: details.phone ?? null,
  });
}

/** The events held for this person, oldest first: the order in which they are released. */
export function heldEventsOf(tx: EntityManager, accountId: string, clientUserId: string): Promise<InboundEvent[]> {
  return tx.find(InboundEvent, { accountId, clientUserId, status: 'HELD' }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/**
 * Wakes each held event's run, oldest first, with the visitor it was waiting for. Signalling twice is harmless (the
 * run keeps the first visitor); a run that has ended meanwhile (expired, or terminated by an operator) is skipped.
 */
export async function releaseHeldEvents(client: Client, held: InboundEvent[], visitorId: string): Promise<void> {
  for (const event of held) {
    try {
      await client.workflow.getHandle(event.workflowId).signal(visitorLinked, { visitorId });
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}

/**
 * Links a person from the API (`POST /accounts/{accountId}/visitors`): creates or updates the visitor and releases
 * the events that were held for it.
 */
export async function linkVisitor(
  deps: { em: EntityManager; temporal: { client: Client } },
  accountId: string,
  clientUserId: string,
  details: VisitorDetails,
): Promise<{ visitor: Visitor; created: boolean; released: number }> {
  const { visitor, created, held } = await deps.em.transactional(async (tx) => {
    await lockPerson(tx, accountId, clientUserId);
    const result = await upsertVisitor(tx, accountId, clientUserId, details);
    return { ...result, held: await heldEventsOf(tx, accountId, clientUserId) };
  });
  await releaseHeldEvents(deps.temporal.client, held, visitor.id);
  return { visitor, created, released: held.length };
}
