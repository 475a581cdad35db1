import { Migration } from '@mikro-orm/migrations';

export class Migration20261123002357_idempotency_keys extends Migration {

  override name = 'Migration20261123002357_idempotency_keys';

  override up(): void | Promise<void> {
    this.addSql(`create table "idempotency_keys" ("id" uuid not null, "scope" varchar(80) not null, "key" varchar(255) not null, "fingerprint" varchar(64) not null, "status" text not null, "lease_owner" uuid null, "locked_until" timestamptz null, "response_status" int null, "response_sealed" text null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);
    this.addSql(`alter table "idempotency_keys" add constraint "idempotency_keys_scope_key_unique" unique ("scope", "key");`);

    this.addSql(`alter table "idempotency_keys" add constraint "idempotency_keys_status_check" check ("status" in ('in_progress', 'completed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }

}
