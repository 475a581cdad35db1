import { Migration } from '@mikro-orm/migrations';

/** A campaign's throttle (`ratePerMinute` of POST /notification/schedule); null sends unthrottled. */
export class Migration20261127100000_campaign_throttle extends Migration {

  override name = 'Migration20261127100000_campaign_throttle';

  override up(): void | Promise<void> {
    this.addSql(`alter table "campaigns" add column "rate_per_minute" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "campaigns" drop column "rate_per_minute";`);
  }

}
