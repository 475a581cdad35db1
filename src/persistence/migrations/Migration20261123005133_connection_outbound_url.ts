import { Migration } from '@mikro-orm/migrations';

export class Migration20261123005133_connection_outbound_url extends Migration {

  override name = 'Migration20261123005133_connection_outbound_url';

  override up(): void | Promise<void> {
    this.addSql(`alter table "connections" add "outbound_url" varchar(2048) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "connections" drop column "outbound_url";`);
  }

}
