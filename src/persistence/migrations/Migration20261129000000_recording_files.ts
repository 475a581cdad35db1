import { Migration } from '@mikro-orm/migrations';

/**
 * Recording files (issue 41): the `files` table, where every take and stock recording the service holds is a row
 * with a `fil_…` id, and what points at one (a job's selected take, a message's recording, a stock item) takes that
 * id, and a message keeps its recording's length and type. The takes submitted as bare URLs before (`job_files`) become files of their jobs, rejected (the service never
 * held their bytes); a message that plays one keeps its URL.
 */
export class Migration20261129000000_recording_files extends Migration {

  override name = 'Migration20261129000000_recording_files';

  override up(): void | Promise<void> {
    this.addSql(`create table "files" ("id" varchar(40) not null, "account_id" uuid not null, "app_id" uuid not null, "job_id" uuid null, "source" text not null, "source_url" text null, "status" text not null, "reason" varchar(32) null, "detail" text null, "file_name" varchar(255) null, "declared_type" varchar(100) null, "detected_type" varchar(16) null, "size_bytes" bigint null, "sha256" varchar(64) null, "duration_ms" int null, "sample_rate" int null, "channels" int null, "content_type" varchar(100) null, "loudness_lufs" double precision null, "waveform" jsonb null, "original_key" varchar(512) not null, "delivery_key" varchar(512) null, "delivery_size_bytes" bigint null, "url" text not null, "submission_id" uuid null, "submitted_at" timestamptz null, "run_started_at" timestamptz null, "created_at" timestamptz not null, "processed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "files" add constraint "files_submission_id_unique" unique ("submission_id");`);
    this.addSql(`create index "files_account_id_created_at_id_index" on "files" ("account_id", "created_at", "id");`);
    this.addSql(`create index "files_job_id_created_at_id_index" on "files" ("job_id", "created_at", "id");`);
    this.addSql(`create index "files_status_created_at_index" on "files" ("status", "created_at");`);
    this.addSql(`alter table "files" add constraint "files_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "files" add constraint "files_app_id_foreign" foreign key ("app_id") references "apps" ("id");`);
    this.addSql(`alter table "files" add constraint "files_job_id_foreign" foreign key ("job_id") references "jobs" ("id") on delete set null;`);
    this.addSql(`alter table "files" add constraint "files_source_check" check ("source" in ('upload', 'artist', 'url'));`);
    this.addSql(`alter table "files" add constraint "files_status_check" check ("status" in ('processing', 'ready', 'rejected'));`);

    this.addSql(`insert into "files" ("id", "account_id", "app_id", "job_id", "source", "source_url", "status", "reason", "detail", "file_name", "declared_type", "size_bytes", "duration_ms", "original_key", "url", "submission_id", "submitted_at", "created_at", "processed_at")
      select f."id"::text, f."account_id", j."app_id", f."job_id", 'url', f."url", 'rejected', 'unreachable',
        'Submitted as a URL before the service held recording files; submit it again.', f."file_name", f."mime_type", f."size_bytes", f."duration_ms",
        'recordings/legacy/' || f."id"::text || '/original', f."url", f."id", f."created_at", f."created_at", f."created_at"
      from "job_files" f join "jobs" j on j."id" = f."job_id";`);
    this.addSql(`drop table "job_files" cascade;`);

    this.addSql(`alter table "jobs" alter column "selected_file_id" type varchar(40) using ("selected_file_id"::text);`);
    this.addSql(`alter table "notifications" alter column "recording_file_id" type varchar(40) using ("recording_file_id"::text);`);
    this.addSql(`alter table "stock" add "file_id" varchar(40) null;`);
    this.addSql(`alter table "notifications" add "recording_duration_ms" int null, add "recording_content_type" varchar(100) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "notifications" drop column "recording_duration_ms", drop column "recording_content_type";`);
    this.addSql(`alter table "stock" drop column "file_id";`);
    this.addSql(`create table "job_files" ("id" uuid not null, "account_id" uuid not null, "job_id" uuid not null, "url" text not null, "file_name" varchar(255) null, "mime_type" varchar(100) null, "duration_ms" int null, "size_bytes" bigint null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "job_files_job_id_index" on "job_files" ("job_id");`);
    this.addSql(`alter table "job_files" add constraint "job_files_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "job_files" add constraint "job_files_job_id_foreign" foreign key ("job_id") references "jobs" ("id");`);
    // Takes become the URL rows they were; a job or message that names a file by its fil_ id names nothing after.
    this.addSql(`insert into "job_files" ("id", "account_id", "job_id", "url", "file_name", "mime_type", "duration_ms", "size_bytes", "created_at")
      select "submission_id", "account_id", "job_id", "url", "file_name", coalesce("content_type", "declared_type"), "duration_ms", "size_bytes", "created_at"
      from "files" where "submission_id" is not null and "job_id" is not null;`);
    this.addSql(`update "jobs" j set "selected_file_id" = f."submission_id"::text from "files" f where f."id" = j."selected_file_id";`);
    this.addSql(`update "notifications" n set "recording_file_id" = f."submission_id"::text from "files" f where f."id" = n."recording_file_id";`);
    this.addSql(`update "jobs" set "selected_file_id" = null where "selected_file_id" !~ '^[0-9a-f-]{36}$';`);
    this.addSql(`update "notifications" set "recording_file_id" = null where "recording_file_id" !~ '^[0-9a-f-]{36}$';`);
    this.addSql(`alter table "jobs" alter column "selected_file_id" type uuid using ("selected_file_id"::uuid);`);
    this.addSql(`alter table "notifications" alter column "recording_file_id" type uuid using ("recording_file_id"::uuid);`);
    this.addSql(`drop table "files" cascade;`);
  }

}
