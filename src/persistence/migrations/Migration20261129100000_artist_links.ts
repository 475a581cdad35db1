import { Migration } from '@mikro-orm/migrations';

/**
 * Artist links (docs/recordings.md, "The artist's link"): a job's links, each kept as the SHA-256 of its token (the
 * lookup, unique) and the token sealed for the row; at most one live link a job (a partial unique index).
 */
export class Migration20261129100000_artist_links extends Migration {

  override name = 'Migration20261129100000_artist_links';

  override up(): void | Promise<void> {
    this.addSql(`create table "artist_links" ("id" uuid not null, "job_id" uuid not null, "token_hash" varchar(64) not null, "token_sealed" text not null, "artist" varchar(320) null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "artist_links" add constraint "artist_links_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create unique index "artist_links_live_job_id_index" on "artist_links" ("job_id") where "revoked_at" is null;`);
    this.addSql(`alter table "artist_links" add constraint "artist_links_job_id_foreign" foreign key ("job_id") references "jobs" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "artist_links" cascade;`);
  }

}
