import { Migration } from '@mikro-orm/migrations';

/**
 * Console sessions (docs/console.md, "Sign-in"): each the SHA-256 of its cookie's token (the lookup, unique), its
 * account (gone with it) and its end, indexed so that ended sessions are swept cheaply.
 */
export class Migration20261130100000_console_sessions extends Migration {

  override name = 'Migration20261130100000_console_sessions';

  override up(): void | Promise<void> {
    this.addSql(`create table "console_sessions" ("id" uuid not null, "account_id" uuid not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "console_sessions" add constraint "console_sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "console_sessions_expires_at_index" on "console_sessions" ("expires_at");`);
    this.addSql(`alter table "console_sessions" add constraint "console_sessions_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "console_sessions" cascade;`);
  }

}
