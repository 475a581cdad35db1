import { Migration } from '@mikro-orm/migrations';

/**
 * Deliveries become an outbox (docs/adr/0027-deliveries-go-through-an-outbox-and-batch-runs.md): a publish writes its delivery rows with the
 * task queue whose relay sends them; the relay claims pending rows into a batch (`delivery_batches`), sets their
 * batch and workflow id, and starts one run per batch. Rows written before this migration have no task queue and
 * stay with the runs that already drive them.
 */
export class Migration20261124030000_delivery_outbox extends Migration {

  override name = 'Migration20261124030000_delivery_outbox';

  override up(): void | Promise<void> {
    this.addSql(`alter table "deliveries" alter column "workflow_id" drop not null;`);
    this.addSql(`alter table "deliveries" add column "task_queue" varchar(200) null, add column "batch_id" varchar(40) null;`);
    this.addSql(`create index "deliveries_outbox_index" on "deliveries" ("task_queue", "created_at") where "batch_id" is null and "status" = 'pending';`);
    this.addSql(`create index "deliveries_batch_id_index" on "deliveries" ("batch_id");`);
    this.addSql(`create table "delivery_batches" ("id" varchar(40) not null, "task_queue" varchar(200) not null, "claimed_at" timestamptz not null, "started_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "delivery_batches_unstarted_index" on "delivery_batches" ("task_queue", "claimed_at") where "started_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "delivery_batches" cascade;`);
    this.addSql(`drop index "deliveries_batch_id_index";`);
    this.addSql(`drop index "deliveries_outbox_index";`);
    this.addSql(`alter table "deliveries" drop column "task_queue", drop column "batch_id";`);
  }

}
