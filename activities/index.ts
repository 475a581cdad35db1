import { createAbTestActivities } from './abtests.ts';
import { createCampaignActivities } from './campaigns.ts';
import { createDeliveryActivities } from './deliveries.ts';
import type { ActivityDeps } from './deps.ts';
import { createExperienceActivities } from './experiences.ts';
import { createFileActivities } from './files.ts';
import { createIngestActivities } from './ingest.ts';
import { createJobActivities } from './jobs.ts';
import { createSelfTestActivities } from './self-test.ts';

export type { ActivityDeps } from './deps.ts';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSelfTestActivities(deps),
    ...createDeliveryActivities(deps),
    ...createJobActivities(deps),
    ...createIngestActivities(deps),
    ...createExperienceActivities(deps),
    ...createAbTestActivities(deps),
    ...createCampaignActivities(deps),
    ...createFileActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
