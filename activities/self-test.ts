import type { ActivityDeps } from './deps.ts';

export function createSelfTestActivities({ orm }: Pick<ActivityDeps, 'orm'>) {
  return {
    /** Proves the worker reaches Postgres: returns the database's own clock. */
    async readDatabaseClock(): Promise<string> {
      const [row] = await orm.em.getConnection().execute<{ now: Date }[]>('select now() as now');
      return new Date(row!.now).toISOString();
    },
  };
}
