import { Migration } from '@mikro-orm/migrations';

/**
 * inbound_events becomes the ingest outbox: the API commits a RECEIVED row and answers 202; a relay claims
 * unrelayed rows into a batch (`relay_batch_id`) and starts `ingest-batch:<relay_batch_id>`, then sets
 * `workflow_started_at`. A row names the task queue of the API that accepted it (`task_queue`), and only that
 * queue's relays claim it, as with deliveries (docs/adr/0029-deliveries-belong-to-a-task-queue.md). Rows written before this migration were started by their own `ingestEvent` run (or will be,
 * by a run that already exists), so they count as relayed.
 */
export class Migration20261124090000_ingest_outbox extends Migration {

  override name = 'Migration20261124090000_ingest_outbox';

  override up(): void | Promise<void> {
    this.addSql(`alter table "inbound_events" add "relay_batch_id" varchar(40) null, add "relay_claimed_at" timestamptz null, add "task_queue" varchar(200) null;`);
    this.addSql(`update "inbound_events" set "workflow_started_at" = coalesce("workflow_started_at", "created_at");`);
    this.addSql(`create index "inbound_events_unrelayed_index" on "inbound_events" ("task_queue", "created_at", "id") where "workflow_started_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "inbound_events_unrelayed_index";`);
    this.addSql(`alter table "inbound_events" drop column "relay_batch_id", drop column "relay_claimed_at", drop column "task_queue";`);
  }

}
