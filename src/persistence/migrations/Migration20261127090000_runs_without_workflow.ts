import { Migration } from '@mikro-orm/migrations';

/** A run that ends in routing's first steps has no workflow (ADR 0066). */
export class Migration20261127090000_runs_without_workflow extends Migration {

  override name = 'Migration20261127090000_runs_without_workflow';

  override up(): void | Promise<void> {
    this.addSql(`alter table "experience_runs" alter column "workflow_id" drop not null;`);
  }

  override down(): void | Promise<void> {
    // The id such a run's workflow would have had (experienceRunWorkflowId).
    this.addSql(`update "experience_runs" set "workflow_id" = case
      when "visitor_id" is null then 'experience:' || "experience_id" || ':event:' || "trigger_event_id"
      else 'experience:' || "experience_id" || ':' || "visitor_id" || case when "run_number" > 1 then ':' || "run_number" else '' end
    end where "workflow_id" is null;`);
    this.addSql(`alter table "experience_runs" alter column "workflow_id" set not null;`);
  }

}
