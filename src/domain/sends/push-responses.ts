import type { EntityManager } from '@mikro-orm/postgresql';
import { clickedSendId, countClick } from './record-click.ts';

/** The longest window a message's conversion goal may have (30 days). */
export const maxConversionHours = 720;

/** What an ingested event may say about pushes: a click on one, or a conversion of the messages it reached. */
interface RespondingEvent {
  accountId: string;
  eventType: string;
  clientUserId?: string | null | undefined;
  attributes?: Record<string, unknown> | null | undefined;
  occurredAt: Date;
}

/**
 * Counts what an event says about the account's pushes, in the transaction that routes it: a `push.clicked` event
 * with a send id counts like POST /push/click (a click at an impossible time is ignored); an event of a message's
 * conversion type from a person marks that person's latest push of the message within its window `converted`, once.
 */
export async function countPushResponses(tx: EntityManager, event: RespondingEvent): Promise<void> {
  const clicked = clickedSendId(event.eventType, event.attributes);
  if (clicked) await countClick(tx, event.accountId, clicked, event.occurredAt);
  if (event.clientUserId) await attributeConversion(tx, event as RespondingEvent & { clientUserId: string });
}

/**
 * One statement: the account's messages converted by this event type (through their own index; none for most
 * events), the person's devices, and, per message, the person's latest sent push of it within the message's window
 * before the event, from a campaign, an A/B test or an experience (each through its own index by device); that push is
 * marked converted unless it already is. An earlier push of the same message is never marked instead.
 */
async function attributeConversion(tx: EntityManager, event: RespondingEvent & { clientUserId: string }): Promise<void> {
  const occurredAt = event.occurredAt.toISOString();
  await tx.execute(
    `with goals as (
       select n.id, (n.conversion ->> 'withinHours')::int as hours from notifications n
        where n.account_id = ? and n.conversion is not null and n.conversion ->> 'eventType' = ?),
     person as (select d.id from devices d where d.account_id = ? and d.client_user_id = ? and exists (select 1 from goals)),
     reached as (
       select s.id, s.notification_id, s.status, s.sent_at, s.converted_at from push_sends s join goals g on g.id = s.notification_id
        where s.source = 'campaign' and s.device_id in (select id from person)
       union all
       select s.id, s.notification_id, s.status, s.sent_at, s.converted_at from goals g
         join ab_tests t on (t.template_id_a = g.id or t.template_id_b = g.id) and t.app_id = (select n.app_id from notifications n where n.id = g.id)
         join push_sends s on s.ab_test_id = t.id and s.notification_id = g.id
        where s.device_id in (select id from person)
       union all
       select s.id, s.notification_id, s.status, s.sent_at, s.converted_at from push_sends s join goals g on g.id = s.notification_id
        where s.source = 'flow' and s.device_id in (select id from person)),
     latest as (
       select distinct on (r.notification_id) r.id, r.converted_at from reached r join goals g on g.id = r.notification_id
        where r.status = 'sent' and r.sent_at <= ?::timestamptz and r.sent_at > ?::timestamptz - make_interval(hours => g.hours)
        order by r.notification_id, r.sent_at desc)
     update push_sends s set converted_at = ?::timestamptz from latest where s.id = latest.id and latest.converted_at is null`,
    [event.accountId, event.eventType, event.accountId, event.clientUserId, occurredAt, occurredAt, occurredAt],
  );
}
