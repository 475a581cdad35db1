import type { EntityManager } from '@mikro-orm/postgresql';
import type { CampaignCounts } from '../../../workflows/campaign-send.contract.ts';

/**
 * A campaign's pushes, counted now in one query over its rows (test sends are never among them): `failed` is every
 * push FCM refused or that was in flight when its attempt died (`unconfirmed`), `unregistered` those whose token was
 * gone. The audience is the snapshot's size; a push has its row once answered (docs/adr/0059). Once the send has
 * ended, audience = sent + failed + unregistered + skipped + cancelled. A push counts as clicked once, however often
 * it was clicked.
 */
export async function countCampaign(em: EntityManager, notificationId: string): Promise<CampaignCounts> {
  const [row] = await em.getConnection().execute<Array<Record<keyof CampaignCounts, string | null>>>(
    `select (select c.audience from campaigns c where c.notification_id = ?) as audience,
            count(*) filter (where status = 'sent') as sent,
            count(*) filter (where status in ('failed', 'unconfirmed')) as failed,
            count(*) filter (where status = 'unregistered') as unregistered,
            count(*) filter (where status = 'skipped') as skipped,
            count(*) filter (where status = 'cancelled') as cancelled,
            count(*) filter (where status = 'sent' and clicked_at is not null) as clicked
       from push_sends s where s.notification_id = ? and s.source = 'campaign'`,
    [notificationId, notificationId],
  );
  const audience = Number(row!.audience ?? 0);
  return {
    audience: audience === 0 ? null : audience,
    sent: Number(row!.sent),
    failed: Number(row!.failed),
    unregistered: Number(row!.unregistered),
    skipped: Number(row!.skipped),
    cancelled: Number(row!.cancelled),
    clicked: Number(row!.clicked),
  };
}
