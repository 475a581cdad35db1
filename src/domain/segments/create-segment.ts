import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Segment } from '../../persistence/entities/segment.ts';
import { findOwnedApp } from '../apps/find-owned-app.ts';
import { withDeviceCount, type CountedSegment } from './get-segment.ts';
import type { SegmentRules } from './segment-rules.ts';

export async function createSegment(em: EntityManager, accountId: string, input: { appId: string; name: string; rules: SegmentRules }): Promise<CountedSegment> {
  await findOwnedApp(em, accountId, input.appId);
  const segment = em.create(Segment, { id: randomUUID(), accountId, appId: input.appId, name: input.name, rules: input.rules });
  await em.flush();
  return withDeviceCount(em, segment);
}
