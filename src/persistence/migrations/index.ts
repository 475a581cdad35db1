import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122175541_initial } from './Migration20261122175541_initial.ts';
import { Migration20261122181333_outbound_webhooks } from './Migration20261122181333_outbound_webhooks.ts';
import { Migration20261122182340_recording_jobs } from './Migration20261122182340_recording_jobs.ts';
import { Migration20261122183301_event_ingest } from './Migration20261122183301_event_ingest.ts';
import { Migration20261123002357_idempotency_keys } from './Migration20261123002357_idempotency_keys.ts';
import { Migration20261123005130_experiences } from './Migration20261123005130_experiences.ts';
import { Migration20261123005133_connection_outbound_url } from './Migration20261123005133_connection_outbound_url.ts';
import { Migration20261123015930_devices_and_segments } from './Migration20261123015930_devices_and_segments.ts';
import { Migration20261123021358_ab_tests } from './Migration20261123021358_ab_tests.ts';
import { Migration20261124030000_delivery_outbox } from './Migration20261124030000_delivery_outbox.ts';
import { Migration20261124090000_ingest_outbox } from './Migration20261124090000_ingest_outbox.ts';
import { Migration20261126050000_campaign_sends } from './Migration20261126050000_campaign_sends.ts';
import { Migration20261127090000_runs_without_workflow } from './Migration20261127090000_runs_without_workflow.ts';
import { Migration20261127100000_campaign_throttle } from './Migration20261127100000_campaign_throttle.ts';
import { Migration20261127110000_app_default_timezone } from './Migration20261127110000_app_default_timezone.ts';
import { Migration20261128000000_local_time_sends } from './Migration20261128000000_local_time_sends.ts';
import { Migration20261128010000_frequency_caps } from './Migration20261128010000_frequency_caps.ts';
import { Migration20261128020000_quiet_hours } from './Migration20261128020000_quiet_hours.ts';
import { Migration20261128030000_conversions } from './Migration20261128030000_conversions.ts';
import { Migration20261129100000_artist_links } from './Migration20261129100000_artist_links.ts';
import { Migration20261130100000_console_sessions } from './Migration20261130100000_console_sessions.ts';

/** Every committed migration, in order. A new one is generated with `npm run migration:create -- <name>`. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122175541_initial', class: Migration20261122175541_initial },
  { name: 'Migration20261122181333_outbound_webhooks', class: Migration20261122181333_outbound_webhooks },
  { name: 'Migration20261122182340_recording_jobs', class: Migration20261122182340_recording_jobs },
  { name: 'Migration20261122183301_event_ingest', class: Migration20261122183301_event_ingest },
  { name: 'Migration20261123002357_idempotency_keys', class: Migration20261123002357_idempotency_keys },
  { name: 'Migration20261123005130_experiences', class: Migration20261123005130_experiences },
  { name: 'Migration20261123005133_connection_outbound_url', class: Migration20261123005133_connection_outbound_url },
  { name: 'Migration20261123015930_devices_and_segments', class: Migration20261123015930_devices_and_segments },
  { name: 'Migration20261123021358_ab_tests', class: Migration20261123021358_ab_tests },
  { name: 'Migration20261124030000_delivery_outbox', class: Migration20261124030000_delivery_outbox },
  { name: 'Migration20261124090000_ingest_outbox', class: Migration20261124090000_ingest_outbox },
  { name: 'Migration20261126050000_campaign_sends', class: Migration20261126050000_campaign_sends },
  { name: 'Migration20261127090000_runs_without_workflow', class: Migration20261127090000_runs_without_workflow },
  { name: 'Migration20261127100000_campaign_throttle', class: Migration20261127100000_campaign_throttle },
  { name: 'Migration20261127110000_app_default_timezone', class: Migration20261127110000_app_default_timezone },
  { name: 'Migration20261128000000_local_time_sends', class: Migration20261128000000_local_time_sends },
  { name: 'Migration20261128010000_frequency_caps', class: Migration20261128010000_frequency_caps },
  { name: 'Migration20261128020000_quiet_hours', class: Migration20261128020000_quiet_hours },
  { name: 'Migration20261128030000_conversions', class: Migration20261128030000_conversions },
  { name: 'Migration20261129100000_artist_links', class: Migration20261129100000_artist_links },
  { name: 'Migration20261130100000_console_sessions', class: Migration20261130100000_console_sessions },
];
