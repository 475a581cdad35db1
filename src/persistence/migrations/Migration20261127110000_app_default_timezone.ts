import { Migration } from '@mikro-orm/migrations';

/** An app's default time zone, for its devices that name none. */
export class Migration20261127110000_app_default_timezone extends Migration {

  override name = 'Migration20261127110000_app_default_timezone';

  override up(): void | Promise<void> {
    this.addSql(`alter table "apps" add column "default_timezone" varchar(64) not null default 'UTC';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "apps" drop column "default_timezone";`);
  }

}
