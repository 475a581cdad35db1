import { Migration } from '@mikro-orm/migrations';

/**
 * Quiet hours: an app's (`{ start, end, action }`, null for none); a push held until they end (`not_before`, with an
 * index of the held pushes alone, so a send finds its due ones without reading the rest and a status change stays a
 * HOT update); the `quiet` and `expired` statuses; and pushes of source `flow` (a flow's push node).
 */
export class Migration20261128020000_quiet_hours extends Migration {

  override name = 'Migration20261128020000_quiet_hours';

  override up(): void | Promise<void> {
    this.addSql(`alter table "apps" add column "quiet_hours" jsonb null;`);
    this.addSql(`alter table "push_sends" drop constraint "push_sends_source_check";`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_source_check" check ("source" in ('abtest', 'campaign', 'test', 'flow'));`);
    this.addSql(`alter table "push_sends" add column "not_before" timestamptz null;`);
    this.addSql(`create index "push_sends_held_index" on "push_sends" ("notification_id", "not_before") where "not_before" is not null;`);
    this.addSql(`alter table "push_sends" drop constraint "push_sends_status_check";`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_status_check" check ("status" in ('pending', 'sending', 'sent', 'failed', 'unregistered', 'skipped', 'unconfirmed', 'cancelled', 'capped', 'quiet', 'expired'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "push_sends" drop constraint "push_sends_status_check";`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_status_check" check ("status" in ('pending', 'sending', 'sent', 'failed', 'unregistered', 'skipped', 'unconfirmed', 'cancelled', 'capped'));`);
    this.addSql(`drop index "push_sends_held_index";`);
    this.addSql(`alter table "push_sends" drop column "not_before";`);
    this.addSql(`alter table "push_sends" drop constraint "push_sends_source_check";`);
    this.addSql(`alter table "push_sends" add constraint "push_sends_source_check" check ("source" in ('abtest', 'campaign', 'test'));`);
    this.addSql(`alter table "apps" drop column "quiet_hours";`);
  }

}
