import { Migration } from '@mikro-orm/migrations';

/**
 * Local-time sends (`sendInLocalTime` of POST /notification/schedule): the campaign's flag, and each snapshot shard's
 * group (the instant its devices' local time reaches playTime's wall-clock time, and that UTC offset), or `expired`
 * when that time plus the message's expiry had passed at the snapshot.
 */
export class Migration20261128000000_local_time_sends extends Migration {

  override name = 'Migration20261128000000_local_time_sends';

  override up(): void | Promise<void> {
    this.addSql(`alter table "campaigns" add column "send_in_local_time" boolean not null default false;`);
    this.addSql(`alter table "campaign_shards" add column "send_at" timestamptz null, add column "utc_offset_minutes" int null, add column "expired" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "campaign_shards" drop column "send_at", drop column "utc_offset_minutes", drop column "expired";`);
    this.addSql(`alter table "campaigns" drop column "send_in_local_time";`);
  }

}
