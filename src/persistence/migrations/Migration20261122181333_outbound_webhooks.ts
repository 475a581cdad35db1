import { Migration } from '@mikro-orm/migrations';

export class Migration20261122181333_outbound_webhooks extends Migration {

  override name = 'Migration20261122181333_outbound_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "endpoints" ("id" varchar(40) not null, "account_id" uuid not null, "url" text not null, "event_types" jsonb not null, "description" varchar(500) null, "status" text not null, "disabled_reason" text null, "secret_sealed" text not null, "previous_secret_sealed" text null, "previous_secret_expires_at" timestamptz null, "failing_since" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "endpoints_account_id_created_at_id_index" on "endpoints" ("account_id", "created_at", "id");`);

    this.addSql(`create table "outbound_events" ("id" varchar(40) not null, "account_id" uuid not null, "type" varchar(100) not null, "body" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "outbound_events_account_id_created_at_id_index" on "outbound_events" ("account_id", "created_at", "id");`);

    this.addSql(`create table "deliveries" ("id" varchar(40) not null, "account_id" uuid not null, "event_id" varchar(40) not null, "endpoint_id" varchar(40) not null, "redelivery_of" varchar(40) null, "workflow_id" varchar(200) not null, "status" text not null, "attempt_count" int not null default 0, "last_status_code" int null, "last_error" text null, "failure_reason" text null, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "deliveries_endpoint_id_created_at_id_index" on "deliveries" ("endpoint_id", "created_at", "id");`);
    this.addSql(`create index "deliveries_endpoint_id_status_created_at_id_index" on "deliveries" ("endpoint_id", "status", "created_at", "id");`);

    this.addSql(`create table "delivery_attempts" ("id" uuid not null, "delivery_id" varchar(40) not null, "attempt_number" int not null, "started_at" timestamptz not null, "duration_ms" int not null, "status_code" int null, "error" text null, "response_body" text null, "outcome" text not null, primary key ("id"));`);
    this.addSql(`alter table "delivery_attempts" add constraint "delivery_attempts_delivery_id_attempt_number_unique" unique ("delivery_id", "attempt_number");`);

    this.addSql(`alter table "endpoints" add constraint "endpoints_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "endpoints" add constraint "endpoints_status_check" check ("status" in ('enabled', 'disabled'));`);

    this.addSql(`alter table "outbound_events" add constraint "outbound_events_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);

    this.addSql(`alter table "deliveries" add constraint "deliveries_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "deliveries" add constraint "deliveries_event_id_foreign" foreign key ("event_id") references "outbound_events" ("id");`);
    this.addSql(`alter table "deliveries" add constraint "deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "endpoints" ("id");`);
    this.addSql(`alter table "deliveries" add constraint "deliveries_status_check" check ("status" in ('pending', 'succeeded', 'failed'));`);

    this.addSql(`alter table "delivery_attempts" add constraint "delivery_attempts_delivery_id_foreign" foreign key ("delivery_id") references "deliveries" ("id");`);
    this.addSql(`alter table "delivery_attempts" add constraint "delivery_attempts_outcome_check" check ("outcome" in ('delivered', 'retry', 'gone', 'rejected', 'error'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "deliveries" drop constraint "deliveries_endpoint_id_foreign";`);
    this.addSql(`alter table "deliveries" drop constraint "deliveries_event_id_foreign";`);
    this.addSql(`alter table "delivery_attempts" drop constraint "delivery_attempts_delivery_id_foreign";`);

    this.addSql(`drop table if exists "endpoints" cascade;`);
    this.addSql(`drop table if exists "outbound_events" cascade;`);
    this.addSql(`drop table if exists "deliveries" cascade;`);
    this.addSql(`drop table if exists "delivery_attempts" cascade;`);
  }

}
