import type { EntityManager } from '@mikro-orm/postgresql';
import type { Connection } from '../../persistence/entities/connection.ts';
import { InboundEvent } from '../../persistence/entities/inbound-event.ts';
import { Visitor } from '../../persistence/entities/visitor.ts';
import { lockPersons, personKey, type Person } from '../../persistence/person-lock.ts';
import { ingestWorkflowId } from '../../../workflows/ingest-event.contract.ts';
import { countPushResponses } from '../sends/push-responses.ts';
import { decideRouting, loadLiveRuns, loadTriggeredVersions, versionsTriggeredBy, type LiveRun, type RoutedPerson, type RoutingPublish } from '../routing/route-event.ts';
import { createVisitor, mergeVisitorDetails } from '../visitors/link-visitor.ts';

/**
 * The common case of a chunk, decided in one transaction with a handful of statements rather than two transactions
 * and a dozen statements per event: every RECEIVED event whose person has nothing HELD is ignored, held, or linked to
 * its visitor and routed, exactly as `linkInboundEvent` and `routeInboundEvent` would one by one. It locks every
 * person of the chunk first (in one order), reads their visitors, the experiences their event types trigger and
 * their live runs once, decides each event in order of arrival, and writes the visitors and events in one flush.
 *
 * A person with a HELD event (in the database or in this chunk) is left out: releasing and ordering behind held
 * events stays with the per-event path. Answers the events it decided, as it left them. Nothing is carried out on
 * Temporal here; the caller does that after the commit (a held event's run, the routed runs).
 */
export async function linkAndRouteChunk(
  em: EntityManager,
  eventIds: string[],
  connections: Map<string, Connection>,
  publish: RoutingPublish,
): Promise<Map<string, InboundEvent>> {
  return em.transactional(async (tx) => {
    const rows = await tx.find(InboundEvent, { id: { $in: eventIds }, status: 'RECEIVED' }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    const persons = rows.filter((row): row is InboundEvent & Person => row.clientUserId != null);
    await lockPersons(tx, persons);
    const withHeld = new Set(
      (persons.length
        ? await tx.find(InboundEvent, { status: 'HELD', $or: persons.map(({ accountId, clientUserId }) => ({ accountId, clientUserId })) }, { fields: ['accountId', 'clientUserId'] })
        : []
      ).map((row) => personKey(row as Person)),
    );
    const fast = rows.filter((row) => !row.clientUserId || !withHeld.has(personKey(row as Person)));

    const fastPersons = fast.filter((row): row is InboundEvent & Person => row.clientUserId != null);
    const visitors = new Map(
      (fastPersons.length ? await tx.find(Visitor, { $or: fastPersons.map(({ accountId, clientUserId }) => ({ accountId, clientUserId })) }) : []).map((visitor) => [
        personKey(visitor),
        visitor,
      ]),
    );
    const triggered = await loadTriggeredVersions(tx, distinctBy(fast, (row) => `${row.accountId}:${row.eventType}`));
    const liveRuns = new Map<string, LiveRun[]>();
    for (const accountId of new Set(fast.map((row) => row.accountId))) {
      const known = [...visitors.values()].filter((visitor) => visitor.accountId === accountId).map((visitor) => visitor.id);
      for (const [visitorId, runs] of await loadLiveRuns(tx, accountId, known)) liveRuns.set(visitorId, runs);
    }

    const decided = new Map<string, InboundEvent>();
    for (const row of fast) {
      const config = connections.get(row.connectionId)!.eventConfig;
      if (config.eventTypes && !config.eventTypes.includes(row.eventType)) {
        const reason = `eventType ${row.eventType} is not among the connection's eventTypes`;
        Object.assign(row, { status: 'IGNORED', statusReason: reason, processedAt: new Date() });
        decided.set(row.id, row);
        continue;
      }
      let person: RoutedPerson | null = null;
      if (row.clientUserId) {
        const key = personKey(row as Person);
        const known = visitors.get(key);
        if (!known && !config.createVisitors) {
          const reason = `waiting for visitor ${row.clientUserId}`;
          Object.assign(row, { status: 'HELD', statusReason: reason, workflowId: ingestWorkflowId(row.connectionId, row.messageId) });
          decided.set(row.id, row);
          continue;
        }
        const details = { attributes: row.attributes ?? undefined, email: row.endpoints?.email, phone: row.endpoints?.phone };
        const visitor = known ? mergeVisitorDetails(known, details) : createVisitor(tx, row.accountId, row.clientUserId, details);
        visitors.set(key, visitor);
        person = { id: visitor.id, clientUserId: visitor.clientUserId, attributes: visitor.attributes };
      }
      await countPushResponses(tx, row);
      const versions = versionsTriggeredBy(triggered, row);
      if (versions.length > 0) await tx.flush(); // a run it starts refers to the visitor, which must be written first
      const live = person ? (liveRuns.get(person.id) ?? []) : [];
      const { outcome: routed, entered } = await decideRouting(tx, row, person, versions, live, publish);
      if (person) liveRuns.set(person.id, [...live, ...entered.filter((run) => !live.some((known) => known.id === run.id))]);
      Object.assign(row, { visitorId: person?.id ?? null, status: 'PROCESSED', statusReason: null, routingOutcome: { ...routed }, processedAt: new Date() });
      decided.set(row.id, row);
    }
    await tx.flush();
    return decided;
  });
}

function distinctBy<T>(items: T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}
