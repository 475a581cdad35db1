import { Migration } from '@mikro-orm/migrations';

export class Migration20261123021358_ab_tests extends Migration {

  override name = 'Migration20261123021358_ab_tests';

  override up(): void | Promise<void> {
    this.addSql(`create table "ab_test_members" ("ab_test_id" uuid not null, "device_id" uuid not null, "arm" text not null, primary key ("ab_test_id", "device_id"));`);
    this.addSql(`create index "ab_test_members_ab_test_id_arm_device_id_index" on "ab_test_members" ("ab_test_id", "arm", "device_id");`);

    this.addSql(`create table "ab_tests" ("id" uuid not null, "account_id" uuid not null, "app_id" uuid not null, "name" varchar(200) not null, "description" text null, "filter_id" varchar(64) null, "template_id_a" uuid null, "template_id_b" uuid null, "state" text not null, "play_time" timestamptz null, "play_time_offset_minutes" int not null, "expiry" int not null, "test_percent" int not null, "audience_size" int null, "results" jsonb null, "winner" varchar(1) null, "failure_reason" text null, "started_at" timestamptz null, "decided_at" timestamptz null, "completed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "ab_tests_app_id_created_at_id_index" on "ab_tests" ("app_id", "created_at", "id");`);
    this.addSql(`create index "ab_tests_app_id_state_created_at_id_index" on "ab_tests" ("app_id", "state", "created_at", "id");`);

    this.addSql(`create table "push_sends" ("id" uuid not null, "account_id" uuid not null, "ab_test_id" uuid not null, "device_id" uuid not null, "arm" text not null, "notification_id" uuid not null, "status" text not null, "error" text null, "provider_message_id" varchar(300) null, "sent_at" timestamptz null, "clicked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "push_sends_ab_test_id_arm_status_index" on "push_sends" ("ab_test_id", "arm", "status");`);
    this.addSql(`create index "push_sends_ab_test_id_created_at_id_index" on "push_sends" ("ab_test_id", "created_at", "id");`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_ab_test_id_device_id_unique" unique ("ab_test_id", "device_id");`);

    this.addSql(`alter table "ab_test_members" add constraint "ab_test_members_arm_check" check ("arm" in ('A', 'B', 'remainder'));`);

    this.addSql(`alter table "ab_tests" add constraint "ab_tests_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "ab_tests" add constraint "ab_tests_app_id_foreign" foreign key ("app_id") references "apps" ("id");`);
    this.addSql(`alter table "ab_tests" add constraint "ab_tests_state_check" check ("state" in ('NEW', 'VALIDATED', 'SCHEDULED', 'RUNNING', 'COMPLETED', 'CANCELLED', 'FAILED'));`);

    this.addSql(`alter table "push_sends" add constraint "push_sends_arm_check" check ("arm" in ('A', 'B', 'remainder'));`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_status_check" check ("status" in ('pending', 'sent', 'failed', 'unregistered'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "ab_test_members" cascade;`);
    this.addSql(`drop table if exists "ab_tests" cascade;`);
    this.addSql(`drop table if exists "push_sends" cascade;`);
  }

}
