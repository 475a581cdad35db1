import type { EntityManager } from '@mikro-orm/postgresql';
import type { CampaignCounts } from '../../../workflows/campaign-send.contract.ts';

/**
 * A campaign's pushes, counted now in one grouped query over its rows (test sends are never among them): `failed`
 * is every push that did not go (refused, or in flight when a worker died), `unregistered` those whose token was gone.
 * A push counts as clicked once, however often it was clicked.
 */
export async function countCampaign(em: EntityManager, notificationId: string): Promise<CampaignCounts> {
  const [row] = await em.getConnection().execute<Array<Record<'audience' | 'sent' | 'failed' | 'unregistered' | 'clicked', string>>>(
    `select count(*) as audience,
            count(*) filter (where status = 'sent') as sent,
            count(*) filter (where status in ('failed', 'unconfirmed')) as failed,
            count(*) filter (where status = 'unregistered') as unregistered,
            count(*) filter (where status = 'sent' and clicked_at is not null) as clicked
       from push_sends s where s.notification_id = ? and s.source = 'campaign'`,
    [notificationId],
  );
  const audience = Number(row!.audience);
  return {
    audience: audience === 0 ? null : audience,
    sent: Number(row!.sent),
    failed: Number(row!.failed),
    unregistered: Number(row!.unregistered),
    clicked: Number(row!.clicked),
  };
}
