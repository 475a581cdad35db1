import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
  type Claim,
} from '../../src/persistence/idempotency-keys.ts';
import { connectOrm, type Orm } from '../../src/persistence/orm.ts';
import { query } from '../support/db.ts';

let orm: Orm;
beforeAll(async () => {
  orm = await connectOrm(inject('databaseUrl'), 2);
});
afterAll(async () => {
  await orm?.close();
});

const scope = () => `account:${randomUUID()}`;
const claim = (scopeName: string, key: string, fingerprint = 'f'.repeat(64)) => claimIdempotencyKey(orm.em.fork(), scopeName, key, fingerprint);
const running = (result: Claim) => {
  if (result.outcome !== 'run') throw new Error(`expected to run, got ${result.outcome}`);
  return result;
};
const endLease = (operationId: string) => query(`update idempotency_keys set locked_until = now() - interval '1 second' where id = $1`, [operationId]);

describe('idempotency key claims', () => {
  it('lets only the attempt holding the lease store its answer; a late first attempt changes nothing', async () => {
    const where = scope();
    const first = running(await claim(where, 'k'));
    await endLease(first.operationId);
    const second = running(await claim(where, 'k'));
    expect(second.operationId).toBe(first.operationId);

    await storeIdempotentAnswer(orm.em.fork(), first, 201, 'sealed-by-first');
    await releaseIdempotencyKey(orm.em.fork(), first);
    expect(await claim(where, 'k')).toMatchObject({ outcome: 'in_use' });

    await storeIdempotentAnswer(orm.em.fork(), second, 200, 'sealed-by-second');
    expect(await claim(where, 'k')).toEqual({ outcome: 'replay', status: 200, sealed: 'sealed-by-second' });
  });

  it('frees a released key for the next claim, and tells a different fingerprint apart', async () => {
    const where = scope();
    const first = running(await claim(where, 'k'));
    expect(await claim(where, 'k', 'e'.repeat(64))).toEqual({ outcome: 'reused' });
    await releaseIdempotencyKey(orm.em.fork(), first);
    const again = running(await claim(where, 'k'));
    expect(again.operationId).not.toBe(first.operationId);
  });
});
