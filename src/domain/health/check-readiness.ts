import type { EntityManager } from '@mikro-orm/postgresql';
import type { Connection } from '@temporalio/client';
import { pingTemporal } from '../../temporal/client.ts';

export interface Readiness {
  status: 'ready' | 'unavailable';
  checks: { postgres: 'up' | 'down'; temporal: 'up' | 'down' };
}

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);

export async function checkReadiness(em: EntityManager, temporal: Connection): Promise<Readiness> {
  const [postgres, temporalUp] = await Promise.all([
    withTimeout(em.getConnection().execute('select 1'), 2000).then(() => 'up' as const, () => 'down' as const),
    pingTemporal(temporal).then(() => 'up' as const, () => 'down' as const),
  ]);
  const checks = { postgres, temporal: temporalUp };
  return { status: postgres === 'up' && temporalUp === 'up' ? 'ready' : 'unavailable', checks };
}
