import { Migration } from '@mikro-orm/migrations';

export class Migration20261122182340_recording_jobs extends Migration {

  override name = 'Migration20261122182340_recording_jobs';

  override up(): void | Promise<void> {
    this.addSql(`create table "jobs" ("id" uuid not null, "account_id" uuid not null, "app_id" uuid not null, "notification_id" uuid not null, "title" varchar(200) not null, "description" text null, "rich_push_level" varchar(32) not null, "due_date" bigint null, "artist_due_date" bigint null, "artist" varchar(320) null, "favourite" int not null, "script" text null, "job_type" varchar(32) not null, "is_stock" int not null, "filter_id" varchar(128) null, "status" text not null, "selected_file_id" uuid null, "last_transition_id" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "jobs_account_id_created_at_id_index" on "jobs" ("account_id", "created_at", "id");`);
    this.addSql(`create index "jobs_app_id_status_created_at_id_index" on "jobs" ("app_id", "status", "created_at", "id");`);

    this.addSql(`create table "job_files" ("id" uuid not null, "account_id" uuid not null, "job_id" uuid not null, "url" text not null, "file_name" varchar(255) null, "mime_type" varchar(100) null, "duration_ms" int null, "size_bytes" bigint null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "job_files_job_id_index" on "job_files" ("job_id");`);

    this.addSql(`create table "stock" ("id" uuid not null, "account_id" uuid not null, "app_id" uuid not null, "title" varchar(200) not null, "url" text not null, "rich_push_level" varchar(32) null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "stock_app_id_created_at_id_index" on "stock" ("app_id", "created_at", "id");`);

    this.addSql(`create table "slots" ("id" uuid not null, "account_id" uuid not null, "stock_id" uuid not null, "notification_id" uuid not null, "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`alter table "notifications" add "recording_url" text null, add "recording_file_id" uuid null, add "recording_stock_id" uuid null;`);

    this.addSql(`alter table "jobs" add constraint "jobs_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "jobs" add constraint "jobs_app_id_foreign" foreign key ("app_id") references "apps" ("id");`);
    this.addSql(`alter table "jobs" add constraint "jobs_notification_id_foreign" foreign key ("notification_id") references "notifications" ("id");`);
    this.addSql(`alter table "jobs" add constraint "jobs_status_check" check ("status" in ('CREATED', 'ASSIGNED', 'SUBMITTED', 'SELECTED', 'ACCEPTED', 'CANCELLED'));`);

    this.addSql(`alter table "job_files" add constraint "job_files_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "job_files" add constraint "job_files_job_id_foreign" foreign key ("job_id") references "jobs" ("id");`);

    this.addSql(`alter table "stock" add constraint "stock_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "stock" add constraint "stock_app_id_foreign" foreign key ("app_id") references "apps" ("id");`);

    this.addSql(`alter table "slots" add constraint "slots_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "slots" add constraint "slots_stock_id_foreign" foreign key ("stock_id") references "stock" ("id");`);
    this.addSql(`alter table "slots" add constraint "slots_notification_id_foreign" foreign key ("notification_id") references "notifications" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "job_files" drop constraint "job_files_job_id_foreign";`);
    this.addSql(`alter table "slots" drop constraint "slots_stock_id_foreign";`);

    this.addSql(`drop table if exists "jobs" cascade;`);
    this.addSql(`drop table if exists "job_files" cascade;`);
    this.addSql(`drop table if exists "stock" cascade;`);
    this.addSql(`drop table if exists "slots" cascade;`);

    this.addSql(`alter table "notifications" drop column "recording_url", drop column "recording_file_id", drop column "recording_stock_id";`);
  }

}
