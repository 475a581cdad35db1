import { afterAll, describe, expect, it } from 'vitest';
import { defaultPoolMax as mainPoolSize } from '../../src/persistence/orm.ts';
import { call, newAccount } from '../support/api.ts';
import { holdInTransaction, query } from '../support/db.ts';
import { ok } from '../support/http-assertions.ts';
import { until } from '../support/wait.ts';
import { startApiInstance, type ApiInstance } from '../support/instances.ts';
import { newJob } from '../support/jobs.ts';

let instance: ApiInstance | undefined;
afterAll(async () => {
  await instance?.stop();
});

/** Sessions waiting on `pid`, directly or behind another waiter (later updaters of a row queue behind the first). */
const sessionsBlockedBy = async (pid: number) =>
  Number(
    (
      await query(
        `with recursive blocked(pid) as (
           select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))
           union select a.pid from pg_stat_activity a join blocked b on b.pid = any(pg_blocking_pids(a.pid)))
         select count(*)::int as n from blocked`,
        [pid],
      )
    )[0].n,
  );

describe('the job routes’ own Postgres pool (docs/adr/0045-the-job-routes-have-a-postgres-pool-of-their-own.md)', () => {
  it('answers a job step while every connection of the main pool is held by requests waiting on Postgres', async () => {
    instance = await startApiInstance();
    const baseUrl = instance.url;
    const account = await newAccount();
    const job = await newJob(account);
    const endpoint = ok(
      await call('POST', `/accounts/${account.accountId}/endpoints`, {
        token: account.apiKey,
        body: { url: 'https://127.0.0.1/hook', eventTypes: ['webhook.test'] },
      }),
      201,
    );

    // Slow bulk requests: each PATCH holds a main-pool connection inside its transaction, waiting on the row lock.
    const lock = await holdInTransaction('select 1 from endpoints where id = $1 for update', [endpoint.endpointId]);
    const patches = Array.from({ length: mainPoolSize }, (_, index) =>
      call('PATCH', `/accounts/${account.accountId}/endpoints/${endpoint.endpointId}`, {
        baseUrl,
        token: account.apiKey,
        body: { description: `held ${index}` },
      }),
    );
    try {
      await until('every main-pool connection waits on the lock', async () => (await sessionsBlockedBy(lock.pid)) === mainPoolSize);
      // A request on the main pool now queues for a connection until the lock goes.
      let listSettled = false;
      const list = call('GET', `/accounts/${account.accountId}/endpoints`, { baseUrl, token: account.apiKey }).finally(() => {
        listSettled = true;
      });

      // Were the job routes on the main pool, this call would wait for the lock too: give up, so the lock is released.
      const updated = await call('PUT', '/job/update', {
        baseUrl,
        token: account.apiKey,
        body: { id: job.id, companyId: account.accountId, title: 'Changed while the main pool is busy' },
        signal: AbortSignal.timeout(15_000),
      });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      expect(updated.body.title).toBe('Changed while the main pool is busy');
      expect(listSettled).toBe(false);
      expect(await sessionsBlockedBy(lock.pid)).toBe(mainPoolSize);

      await lock.release();
      expect((await list).status).toBe(200);
    } finally {
      await lock.release();
      for (const patch of await Promise.all(patches)) expect(patch.status).toBe(200);
    }
  });
});
