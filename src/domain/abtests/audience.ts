// TEMPORARY stand-in until the devices and segments branch lands.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AbTest } from '../../persistence/entities/ab-test.ts';

/** The test's segment as it is now: whether it is a segment of the test's app, and how many devices it has. */
export async function countAudience(_em: EntityManager, _test: AbTest): Promise<{ found: boolean; devices: number }> {
  throw new Error('segments are not built yet');
}

/** Writes the audience snapshot (one statement) and answers the size of each arm. */
export async function snapshotAudience(_em: EntityManager, _test: AbTest): Promise<{ A: number; B: number; remainder: number }> {
  throw new Error('segments are not built yet');
}

/** Arm A and arm B each get max(1, floor(N × testPercent / 200)) devices; the rest is the remainder. */
export const armSize = (audience: number, testPercent: number) => Math.max(1, Math.floor((audience * testPercent) / 200));
