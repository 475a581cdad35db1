import { Migration } from '@mikro-orm/migrations';

export class Migration20261126050000_campaign_sends extends Migration {

  override name = 'Migration20261126050000_campaign_sends';

  override up(): void | Promise<void> {
    this.addSql(`create table "campaigns" ("notification_id" uuid not null, "account_id" uuid not null, "app_id" uuid not null, "state" text not null, "play_time" bigint not null, "filter_id" varchar(128) not null, "audience" int null, "reason" text null, "started_at" timestamptz null, "finished_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("notification_id"));`);
    this.addSql(`create index "campaigns_app_id_state_index" on "campaigns" ("app_id", "state");`);

    this.addSql(`create table "campaign_shards" ("notification_id" uuid not null, "position" int not null, "device_ids" uuid[] not null, "size" int not null, "claimed" int not null default 0, "done" int not null default 0, "retries" int not null default 0, primary key ("notification_id", "position"));`);
    this.addSql(`alter table "campaign_shards" add constraint "campaign_shards_notification_id_foreign" foreign key ("notification_id") references "campaigns" ("notification_id");`);

    this.addSql(`create table "push_pace" ("key" varchar(200) not null, "next_at" timestamptz not null, primary key ("key"));`);

    this.addSql(`drop index "push_sends_ab_test_id_arm_status_index";`);
    this.addSql(`drop index "push_sends_ab_test_id_created_at_id_index";`);
    this.addSql(`alter table "push_sends" drop constraint "push_sends_ab_test_id_device_id_unique";`);
    this.addSql(`alter table "push_sends" drop constraint "push_sends_status_check";`);
    // The rows before this migration were all A/B sends.
    this.addSql(`alter table "push_sends" add "source" text not null default 'abtest';`);
    this.addSql(`alter table "push_sends" alter column "source" drop default;`);
    // Room on each page for two more versions of each row: a send's status moves twice (claimed, answered) before
    // its page can be pruned, and with no indexed column changing and room on the page, each move is a HOT update
    // that writes no index entry. bench:campaign: 49% of updates HOT at 60, 100% at 30 (docs/performance.md).
    this.addSql(`alter table "push_sends" set (fillfactor = 30);`);
    this.addSql(`alter table "push_sends" alter column "ab_test_id" drop not null;`);
    this.addSql(`alter table "push_sends" alter column "arm" drop not null;`);
    this.addSql(`create unique index "push_sends_ab_test_device_unique" on "push_sends" ("ab_test_id", "device_id") where "ab_test_id" is not null;`);
    this.addSql(`create index "push_sends_ab_test_arm_index" on "push_sends" ("ab_test_id", "arm") where "ab_test_id" is not null;`);
    this.addSql(`create index "push_sends_ab_test_created_index" on "push_sends" ("ab_test_id", "created_at", "id") where "ab_test_id" is not null;`);
    this.addSql(`create unique index "push_sends_campaign_device_unique" on "push_sends" ("notification_id", "device_id") where "source" = 'campaign';`);
    this.addSql(`create index "push_sends_notification_created_index" on "push_sends" ("notification_id", "created_at", "id");`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_source_check" check ("source" in ('abtest', 'campaign', 'test'));`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_status_check" check ("status" in ('pending', 'sending', 'sent', 'failed', 'unregistered', 'skipped', 'unconfirmed', 'cancelled'));`);

    this.addSql(`alter table "campaigns" add constraint "campaigns_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "campaigns" add constraint "campaigns_app_id_foreign" foreign key ("app_id") references "apps" ("id");`);
    this.addSql(`alter table "campaigns" add constraint "campaigns_state_check" check ("state" in ('SCHEDULED', 'SENDING', 'SENT', 'CANCELLED', 'EXPIRED', 'FAILED'));`);
  }

  override down(): void | Promise<void> {

    this.addSql(`drop table if exists "campaign_shards" cascade;`);
    this.addSql(`drop table if exists "campaigns" cascade;`);
    this.addSql(`drop table if exists "push_pace" cascade;`);

    this.addSql(`drop index "push_sends_ab_test_device_unique";`);
    this.addSql(`drop index "push_sends_ab_test_arm_index";`);
    this.addSql(`drop index "push_sends_ab_test_created_index";`);
    this.addSql(`drop index "push_sends_campaign_device_unique";`);
    this.addSql(`drop index "push_sends_notification_created_index";`);
    this.addSql(`alter table "push_sends" drop constraint "push_sends_source_check";`);
    this.addSql(`alter table "push_sends" drop constraint "push_sends_status_check";`);
    this.addSql(`alter table "push_sends" drop column "source";`);
    this.addSql(`alter table "push_sends" reset (fillfactor);`);
    this.addSql(`alter table "push_sends" alter column "ab_test_id" set not null;`);
    this.addSql(`alter table "push_sends" alter column "arm" set not null;`);
    this.addSql(`create index "push_sends_ab_test_id_arm_status_index" on "push_sends" ("ab_test_id", "arm", "status");`);
    this.addSql(`create index "push_sends_ab_test_id_created_at_id_index" on "push_sends" ("ab_test_id", "created_at", "id");`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_ab_test_id_device_id_unique" unique ("ab_test_id", "device_id");`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_status_check" check ("status" in ('pending', 'sent', 'failed', 'unregistered'));`);
  }

}
