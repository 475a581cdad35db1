import { Migration } from '@mikro-orm/migrations';

export class Migration20261123015930_devices_and_segments extends Migration {

  override name = 'Migration20261123015930_devices_and_segments';

  override up(): void | Promise<void> {
    this.addSql(`create table "devices" ("id" uuid not null, "account_id" uuid not null, "app_id" uuid not null, "token" varchar(1024) null, "platform" text not null, "client_user_id" varchar(255) null, "attributes" jsonb not null, "subscribed" boolean not null, "locale" varchar(35) null, "timezone" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "last_seen_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "devices_app_id_created_at_id_index" on "devices" ("app_id", "created_at", "id");`);
    this.addSql(`create index "devices_app_id_client_user_id_index" on "devices" ("app_id", "client_user_id");`);
    this.addSql(`create index "devices_segment_id_index" on "devices" ("app_id", "id") where subscribed and deleted_at is null;`);
    this.addSql(`create index "devices_segment_platform_index" on "devices" ("app_id", "platform", "id") where subscribed and deleted_at is null;`);
    this.addSql(`create index "devices_segment_last_seen_at_index" on "devices" ("app_id", "last_seen_at") where subscribed and deleted_at is null;`);
    this.addSql(`create index "devices_segment_locale_index" on "devices" ("app_id", "locale") where subscribed and deleted_at is null;`);
    this.addSql(`create index "devices_segment_attributes_index" on "devices" using gin ("attributes" jsonb_path_ops) where subscribed and deleted_at is null;`);
    this.addSql(`alter table "devices" add constraint "devices_app_id_token_unique" unique ("app_id", "token");`);

    this.addSql(`create table "segments" ("id" uuid not null, "account_id" uuid not null, "app_id" uuid not null, "name" varchar(200) not null, "rules" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "segments_account_id_created_at_id_index" on "segments" ("account_id", "created_at", "id");`);
    this.addSql(`create index "segments_app_id_created_at_id_index" on "segments" ("app_id", "created_at", "id");`);

    this.addSql(`alter table "devices" add constraint "devices_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "devices" add constraint "devices_app_id_foreign" foreign key ("app_id") references "apps" ("id");`);
    this.addSql(`alter table "devices" add constraint "devices_platform_check" check ("platform" in ('ios', 'android', 'web'));`);

    this.addSql(`alter table "segments" add constraint "segments_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "segments" add constraint "segments_app_id_foreign" foreign key ("app_id") references "apps" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "devices" cascade;`);
    this.addSql(`drop table if exists "segments" cascade;`);
  }

}
