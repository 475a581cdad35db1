import { Migration } from '@mikro-orm/migrations';

/**
 * Frequency caps: an app's cap (`{ max, hours }`, null for none), each device's recent pushes (the times of the pushes
 * that counted toward its app's cap, pruned to the cap's window as they are written), and the `capped` push status.
 */
export class Migration20261128010000_frequency_caps extends Migration {

  override name = 'Migration20261128010000_frequency_caps';

  override up(): void | Promise<void> {
    this.addSql(`alter table "apps" add column "frequency_cap" jsonb null;`);
    this.addSql(`alter table "devices" add column "recent_pushes" timestamptz[] null;`);
    this.addSql(`alter table "push_sends" drop constraint "push_sends_status_check";`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_status_check" check ("status" in ('pending', 'sending', 'sent', 'failed', 'unregistered', 'skipped', 'unconfirmed', 'cancelled', 'capped'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "push_sends" drop constraint "push_sends_status_check";`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_status_check" check ("status" in ('pending', 'sending', 'sent', 'failed', 'unregistered', 'skipped', 'unconfirmed', 'cancelled'));`);
    this.addSql(`alter table "devices" drop column "recent_pushes";`);
    this.addSql(`alter table "apps" drop column "frequency_cap";`);
  }

}
