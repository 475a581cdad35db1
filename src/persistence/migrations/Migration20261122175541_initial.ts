import { Migration } from '@mikro-orm/migrations';

export class Migration20261122175541_initial extends Migration {

  override name = 'Migration20261122175541_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "accounts" ("id" uuid not null, "name" varchar(200) not null, "api_key_hash" varchar(64) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "accounts" add constraint "accounts_api_key_hash_unique" unique ("api_key_hash");`);

    this.addSql(`create table "apps" ("id" uuid not null, "account_id" uuid not null, "name" varchar(200) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "apps_account_id_index" on "apps" ("account_id");`);

    this.addSql(`create table "notifications" ("id" uuid not null, "account_id" uuid not null, "app_id" uuid not null, "title" varchar(200) not null, "subtitle" varchar(200) null, "text" text null, "action" varchar(32) not null, "fb_title" varchar(200) null, "fb_subtitle" varchar(200) null, "fb_text" text null, "expiry" int not null, "play_time" bigint null, "about" jsonb not null, "filter_id" varchar(128) null, "priority" varchar(16) not null, "favourite" int not null, "type" varchar(32) not null, "channel" varchar(32) not null, "status" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "notifications_account_id_created_at_id_index" on "notifications" ("account_id", "created_at", "id");`);
    this.addSql(`create index "notifications_app_id_status_created_at_id_index" on "notifications" ("app_id", "status", "created_at", "id");`);

    this.addSql(`alter table "apps" add constraint "apps_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);

    this.addSql(`alter table "notifications" add constraint "notifications_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "notifications" add constraint "notifications_app_id_foreign" foreign key ("app_id") references "apps" ("id");`);
    this.addSql(`alter table "notifications" add constraint "notifications_status_check" check ("status" in ('DRAFT', 'RECORDING', 'READY'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "apps" drop constraint "apps_account_id_foreign";`);
    this.addSql(`alter table "notifications" drop constraint "notifications_account_id_foreign";`);
    this.addSql(`alter table "notifications" drop constraint "notifications_app_id_foreign";`);

    this.addSql(`drop table if exists "accounts" cascade;`);
    this.addSql(`drop table if exists "apps" cascade;`);
    this.addSql(`drop table if exists "notifications" cascade;`);
  }

}
