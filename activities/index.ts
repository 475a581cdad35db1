import type { Logger } from '../src/logger.ts';
import type { Orm } from '../src/persistence/orm.ts';
import { createSelfTestActivities } from './self-test.ts';

/** Everything an activity may touch from outside. Tests pass real or fake ones. */
export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSelfTestActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
