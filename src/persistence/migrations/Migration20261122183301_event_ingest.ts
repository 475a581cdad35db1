import { Migration } from '@mikro-orm/migrations';

export class Migration20261122183301_event_ingest extends Migration {

  override name = 'Migration20261122183301_event_ingest';

  override up(): void | Promise<void> {
    this.addSql(`create table "connections" ("id" varchar(40) not null, "account_id" uuid not null, "provider" varchar(32) not null, "label" varchar(200) not null, "status" text not null, "connect_method" varchar(32) not null, "inbound_key" varchar(64) not null, "signing_secret_sealed" text not null, "previous_signing_secret_sealed" text null, "previous_signing_secret_expires_at" timestamptz null, "mapping" jsonb not null, "event_config" jsonb not null, "outbound_credential_sealed" text null, "last_inbound_at" timestamptz null, "last_outbound_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "connections" add constraint "connections_inbound_key_unique" unique ("inbound_key");`);
    this.addSql(`create index "connections_account_id_created_at_id_index" on "connections" ("account_id", "created_at", "id");`);

    this.addSql(`create table "inbound_events" ("id" varchar(40) not null, "account_id" uuid not null, "connection_id" varchar(40) not null, "message_id" varchar(255) not null, "event_type" varchar(200) not null, "occurred_at" timestamptz not null, "client_user_id" varchar(255) null, "attributes" jsonb null, "endpoints" jsonb null, "raw" jsonb null, "status" text not null, "status_reason" text null, "visitor_id" uuid null, "workflow_id" varchar(400) not null, "workflow_started_at" timestamptz null, "routing_outcome" jsonb null, "created_at" timestamptz not null, "processed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "inbound_events_account_id_created_at_id_index" on "inbound_events" ("account_id", "created_at", "id");`);
    this.addSql(`create index "inbound_events_account_id_status_created_at_id_index" on "inbound_events" ("account_id", "status", "created_at", "id");`);
    this.addSql(`create index "inbound_events_account_id_client_user_id_status_index" on "inbound_events" ("account_id", "client_user_id", "status");`);
    this.addSql(`alter table "inbound_events" add constraint "inbound_events_connection_id_message_id_unique" unique ("connection_id", "message_id");`);

    this.addSql(`create table "rate_limits" ("key" varchar(255) not null, "points" int not null default 0, "expire" bigint null, primary key ("key"));`);

    this.addSql(`create table "visitors" ("id" uuid not null, "account_id" uuid not null, "client_user_id" varchar(255) not null, "attributes" jsonb not null, "email" varchar(320) null, "phone" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "visitors" add constraint "visitors_account_id_client_user_id_unique" unique ("account_id", "client_user_id");`);

    this.addSql(`alter table "connections" add constraint "connections_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "connections" add constraint "connections_status_check" check ("status" in ('active', 'paused'));`);

    this.addSql(`alter table "inbound_events" add constraint "inbound_events_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
    this.addSql(`alter table "inbound_events" add constraint "inbound_events_connection_id_foreign" foreign key ("connection_id") references "connections" ("id");`);
    this.addSql(`alter table "inbound_events" add constraint "inbound_events_status_check" check ("status" in ('RECEIVED', 'HELD', 'PROCESSED', 'IGNORED', 'EXPIRED', 'FAILED'));`);

    this.addSql(`alter table "visitors" add constraint "visitors_account_id_foreign" foreign key ("account_id") references "accounts" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "inbound_events" drop constraint "inbound_events_connection_id_foreign";`);

    this.addSql(`drop table if exists "connections" cascade;`);
    this.addSql(`drop table if exists "inbound_events" cascade;`);
    this.addSql(`drop table if exists "rate_limits" cascade;`);
    this.addSql(`drop table if exists "visitors" cascade;`);
  }

}
