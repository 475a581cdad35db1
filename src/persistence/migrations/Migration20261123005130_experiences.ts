import { Migration } from '@mikro-orm/migrations';

export class Migration20261123005130_experiences extends Migration {

  override name = 'Migration20261123005130_experiences';

  override up(): void | Promise<void> {
    this.addSql(`create table "experiences" ("id" varchar(40) not null, "account_id" uuid not null, "name" varchar(200) not null, "status" text not null, "definition" jsonb not null, "version" int null, "trigger_event_type" varchar(200) null, "published_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "experiences_account_id_created_at_id_index" on "experiences" ("account_id", "created_at", "id");`);
    this.addSql(`create index "experiences_account_id_status_created_at_id_index" on "experiences" ("account_id", "status", "created_at", "id");`);
    this.addSql(`create index "experiences_account_id_trigger_event_type_status_index" on "experiences" ("account_id", "trigger_event_type", "status");`);

    this.addSql(`create table "experience_runs" ("id" varchar(40) not null, "account_id" uuid not null, "experience_id" varchar(40) not null, "version" int not null, "visitor_id" uuid null, "client_user_id" varchar(255) null, "trigger_event_id" varchar(40) not null, "entry_key" varchar(300) null, "run_number" int not null, "workflow_id" varchar(400) not null, "status" text not null, "current_node_id" varchar(64) null, "path" jsonb not null, "entered_at" timestamptz not null, "ended_at" timestamptz null, "end_reason" text null, "end_detail" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "experience_runs_experience_id_created_at_id_index" on "experience_runs" ("experience_id", "created_at", "id");`);
    this.addSql(`create index "experience_runs_experience_id_status_created_at_id_index" on "experience_runs" ("experience_id", "status", "created_at", "id");`);
    this.addSql(`create index "experience_runs_experience_id_client_user_id_creat_cd1e1_index" on "experience_runs" ("experience_id", "client_user_id", "created_at", "id");`);
    this.addSql(`create index "experience_runs_experience_id_visitor_id_index" on "experience_runs" ("experience_id", "visitor_id");`);
    this.addSql(`create index "experience_runs_account_id_visitor_id_status_index" on "experience_runs" ("account_id", "visitor_id", "status");`);
    this.addSql(`alter table "experience_runs" add constraint "experience_runs_experience_id_entry_key_unique" unique ("experience_id", "entry_key");`);

    this.addSql(`create table "experience_versions" ("id" uuid not null, "experience_id" varchar(40) not null, "version" int not null, "definition" jsonb not null, "published_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "experience_versions" add constraint "experience_versions_experience_id_version_unique" unique ("experience_id", "version");`);

    this.addSql(`alter table "experiences" add constraint "experiences_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "experiences" add constraint "experiences_status_check" check ("status" in ('draft', 'active', 'paused', 'archived'));`);

    this.addSql(`alter table "experience_runs" add constraint "experience_runs_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "experience_runs" add constraint "experience_runs_experience_id_foreign" foreign key ("experience_id") references "experiences" ("id");`);
    this.addSql(`alter table "experience_runs" add constraint "experience_runs_status_check" check ("status" in ('running', 'completed', 'goal_reached', 'cancelled', 'failed'));`);
    this.addSql(`alter table "experience_runs" add constraint "experience_runs_end_reason_check" check ("end_reason" in ('completed', 'goal_reached', 'max_duration', 'cancelled', 'failed'));`);

    this.addSql(`alter table "experience_versions" add constraint "experience_versions_experience_id_foreign" foreign key ("experience_id") references "experiences" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "experience_runs" drop constraint "experience_runs_experience_id_foreign";`);
    this.addSql(`alter table "experience_versions" drop constraint "experience_versions_experience_id_foreign";`);

    this.addSql(`drop table if exists "experiences" cascade;`);
    this.addSql(`drop table if exists "experience_runs" cascade;`);
    this.addSql(`drop table if exists "experience_versions" cascade;`);
  }

}
