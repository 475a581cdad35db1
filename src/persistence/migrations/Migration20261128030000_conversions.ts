import { Migration } from '@mikro-orm/migrations';

/**
 * Conversions: a message's conversion goal (`{ eventType, withinHours }`, null for none, with an index of the
 * messages that have one by account and event type, which ingest looks up for each event), the push a conversion is
 * attributed to (`converted_at`), an index of flow pushes by device (campaign and A/B pushes have theirs), and an
 * A/B test's `winner_metric`.
 */
export class Migration20261128030000_conversions extends Migration {

  override name = 'Migration20261128030000_conversions';

  override up(): void | Promise<void> {
    this.addSql(`alter table "notifications" add column "conversion" jsonb null;`);
    this.addSql(`create index "notifications_conversion_index" on "notifications" ("account_id", ("conversion" ->> 'eventType')) where "conversion" is not null;`);
    this.addSql(`alter table "push_sends" add column "converted_at" timestamptz null;`);
    this.addSql(`create index "push_sends_flow_device_index" on "push_sends" ("device_id") where "source" = 'flow';`);
    this.addSql(`alter table "ab_tests" add column "winner_metric" text not null default 'ctr';`);
    this.addSql(`alter table "ab_tests" add constraint "ab_tests_winner_metric_check" check ("winner_metric" in ('ctr', 'conversion'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "ab_tests" drop constraint "ab_tests_winner_metric_check";`);
    this.addSql(`alter table "ab_tests" drop column "winner_metric";`);
    this.addSql(`drop index "push_sends_flow_device_index";`);
    this.addSql(`alter table "push_sends" drop column "converted_at";`);
    this.addSql(`drop index "notifications_conversion_index";`);
    this.addSql(`alter table "notifications" drop column "conversion";`);
  }

}
