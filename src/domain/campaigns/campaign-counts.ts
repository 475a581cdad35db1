import type { EntityManager } from '@mikro-orm/postgresql';
import type { CampaignCounts } from '../../../workflows/campaign-send.contract.ts';

/**
 * A campaign's pushes, counted now in one query over its rows (test sends are never among them): `failed` is every
 * push FCM refused or that was in flight when its attempt died (`unconfirmed`), `unregistered` those whose token was
 * gone. The audience is the snapshot's size; a push has its row once answered (docs/adr/0059). `expired` devices (a
 * local-time group whose time had passed) have no rows: their shards count them. Once the send has ended, audience =
 * sent + failed + unregistered + skipped + cancelled + expired + capped + quiet. A push counts as clicked once, however often it was
 * clicked.
 */
export async function countCampaign(em: EntityManager, notificationId: string): Promise<CampaignCounts> {
  const [row] = await em.getConnection().execute<Array<Record<keyof CampaignCounts | 'expired_groups', string | null>>>(
    `select (select c.audience from campaigns c where c.notification_id = ?) as audience,
            (select coalesce(sum(cs.size), 0) from campaign_shards cs where cs.notification_id = ? and cs.expired) as expired_groups,
            count(*) filter (where status = 'sent') as sent,
            count(*) filter (where status in ('failed', 'unconfirmed')) as failed,
            count(*) filter (where status = 'unregistered') as unregistered,
            count(*) filter (where status = 'skipped') as skipped,
            count(*) filter (where status = 'cancelled') as cancelled,
            count(*) filter (where status = 'capped') as capped,
            count(*) filter (where status = 'quiet') as quiet,
            count(*) filter (where status = 'expired') as expired,
            count(*) filter (where status = 'sent' and clicked_at is not null) as clicked,
            count(*) filter (where status = 'sent' and converted_at is not null) as conversions
       from push_sends s where s.notification_id = ? and s.source = 'campaign'`,
    [notificationId, notificationId, notificationId],
  );
  const audience = Number(row!.audience ?? 0);
  return {
    audience: audience === 0 ? null : audience,
    sent: Number(row!.sent),
    failed: Number(row!.failed),
    unregistered: Number(row!.unregistered),
    skipped: Number(row!.skipped),
    cancelled: Number(row!.cancelled),
    expired: Number(row!.expired_groups) + Number(row!.expired),
    capped: Number(row!.capped),
    quiet: Number(row!.quiet),
    clicked: Number(row!.clicked),
    conversions: Number(row!.conversions),
  };
}
