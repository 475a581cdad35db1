import { describe, expect, it } from 'vitest';
import { call, newAccount, type TestAccount } from '../support/api.ts';
import { experienceDefinition, listRuns, publishedExperience, sampleDefinition, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned, waitForEvent } from '../support/ingest.ts';
import { expectError } from '../support/http-assertions.ts';
import { newProviderConnection } from '../support/providers.ts';
import { newEndpoint } from '../support/webhooks.ts';

const path = (account: TestAccount, rest = '') => `/accounts/${account.accountId}/experiences${rest}`;
const post = (account: TestAccount, rest: string, body?: unknown) => call('POST', path(account, rest), { token: account.apiKey, ...(body === undefined ? {} : { body }) });

const simple = experienceDefinition({ nodes: [{ id: 'done', type: 'exit' }] });

describe('the experience resource', () => {
  it('creates a draft, lists and gets it, changes it, and publishes versions 1, 2 that freeze the definition', async () => {
    const account = await newAccount();
    const created = await post(account, '', { definition: simple });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ experienceId: expect.stringMatching(/^exp_/), status: 'draft', version: null, name: 'Test experience', publishedAt: null });
    expect(created.body.definition).toMatchObject({ start: 'done', entry: { reentry: 'never' }, goals: [] });
    const id = created.body.experienceId;

    const renamed = await call('PATCH', path(account, `/${id}`), { token: account.apiKey, body: { name: 'Onboarding' } });
    expect(renamed.body).toMatchObject({ name: 'Onboarding', definition: { name: 'Onboarding' }, status: 'draft' });
    const first = await post(account, `/${id}/publish`);
    expect(first.body).toMatchObject({ status: 'active', version: 1, publishedAt: expect.any(String) });

    const changed = { ...simple, name: 'Onboarding', trigger: { eventType: 'register', conditions: null } };
    await call('PATCH', path(account, `/${id}`), { token: account.apiKey, body: { definition: changed } });
    expect((await call('GET', path(account, `/${id}`), { token: account.apiKey })).body).toMatchObject({ version: 1, definition: { trigger: { eventType: 'register' } } });
    expect((await post(account, `/${id}/publish`)).body).toMatchObject({ version: 2, status: 'active' });

    const other = await post(account, '', { name: 'Second', definition: simple });
    const all = await call('GET', path(account, '?limit=1'), { token: account.apiKey });
    expect(all.body.items.map((item: { experienceId: string }) => item.experienceId)).toEqual([other.body.experienceId]);
    const next = await call('GET', path(account, `?limit=1&cursor=${all.body.nextCursor}`), { token: account.apiKey });
    expect(next.body.items.map((item: { experienceId: string }) => item.experienceId)).toEqual([id]);
    const drafts = await call('GET', path(account, '?status=draft'), { token: account.apiKey });
    expect(drafts.body.items.map((item: { experienceId: string }) => item.experienceId)).toEqual([other.body.experienceId]);
  });

  it('answers 400 validation_failed with details for a bad definition, at create and at publish', async () => {
    const account = await newAccount();
    const typo = await post(account, '', { definition: { ...simple, nodes: [{ id: 'done', type: 'exit', nxt: 'x' }] } });
    expect(expectError(typo, 400, 'validation_failed').details).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^body\.definition\.nodes\.0/) })]));
    const badOp = await post(account, '', { definition: { ...simple, trigger: { eventType: 'x', conditions: { field: 'event.attributes.a', op: 'like', value: 1 } } } });
    expectError(badOp, 400, 'validation_failed');

    // Structurally fine, but with a dangling edge, an unreachable node, a cycle and a split that does not add up.
    const broken = experienceDefinition({
      nodes: [
        { id: 'a', type: 'split', branches: [{ percent: 60, next: 'b' }, { percent: 30, next: 'missing' }] },
        { id: 'b', type: 'wait', seconds: 10, next: 'a' },
        { id: 'orphan', type: 'exit' },
      ],
    });
    const draft = await post(account, '', { definition: broken });
    expect(draft.status).toBe(201);
    const refused = expectError(await post(account, `/${draft.body.experienceId}/publish`), 400, 'validation_failed');
    const paths = refused.details!.map((detail: { path: string }) => detail.path);
    expect(paths.every((each: string) => each.startsWith('definition.'))).toBe(true);
    expect(refused.details!.map((detail: { message: string }) => detail.message).join(' | ')).toMatch(/missing/);
    expect(refused.details!.length).toBeGreaterThanOrEqual(4);
    expect((await call('GET', path(account, `/${draft.body.experienceId}`), { token: account.apiKey })).body).toMatchObject({ status: 'draft', version: null });
  });

  it('publishes only with the account’s own endpoint and a provider connection that has a write key', async () => {
    const account = await newAccount();
    const endpoint = await newEndpoint(account, ['experience.action']);
    try {
      const keyless = await newProviderConnection(account);
      const draft = await post(account, '', { definition: sampleDefinition({ connectionId: keyless.connectionId, endpointId: endpoint.endpointId }) });
      const refused = expectError(await post(account, `/${draft.body.experienceId}/publish`), 400, 'validation_failed');
      expect(refused.details).toEqual([expect.objectContaining({ path: expect.stringContaining('definition.nodes.3') })]);
      const keyed = await newProviderConnection(account, { writeKey: 'wk_1' });
      await call('PATCH', path(account, `/${draft.body.experienceId}`), {
        token: account.apiKey,
        body: { definition: sampleDefinition({ connectionId: keyed.connectionId, endpointId: endpoint.endpointId }) },
      });
      expect((await post(account, `/${draft.body.experienceId}/publish`)).body).toMatchObject({ status: 'active', version: 1 });
    } finally {
      await endpoint.receiver.close();
    }
  });

  it('pauses (no new entries), resumes, and archives, cancelling every live run; 409 for a step the status forbids', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const waiting = experienceDefinition({
      entry: { reentry: 'always' },
      nodes: [
        { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 3600, next: 'done', timeoutNext: 'done' },
        { id: 'done', type: 'exit' },
      ],
    });
    const { experienceId } = await publishedExperience(account, waiting);
    expectError(await post(account, `/${experienceId}/resume`), 409, 'invalid_state');
    expect((await post(account, `/${experienceId}/pause`)).body.status).toBe('paused');
    const whilePaused = directEvent({ eventType: 'signup', clientUserId: 'u_paused' });
    await postSigned(connection, whilePaused);
    expect((await waitForEvent(account, whilePaused.messageId, 'PROCESSED')).routingOutcome).toMatchObject({ matchedExperiences: [], startedRuns: [] });
    expect((await post(account, `/${experienceId}/resume`)).body.status).toBe('active');

    for (const person of ['a1', 'a2', 'a3']) await postSigned(connection, directEvent({ eventType: 'signup', clientUserId: person }));
    await waitForRuns(account, experienceId, (runs) => runs.length === 3 && runs.every((run) => run.status === 'running'));
    const archived = await post(account, `/${experienceId}/archive`);
    expect(archived.body).toMatchObject({ status: 'archived' });
    const ended = await waitForRuns(account, experienceId, (runs) => runs.every((run) => run.status !== 'running'));
    expect(ended.map((run) => [run.status, run.endReason])).toEqual(Array(3).fill(['cancelled', 'cancelled']));
    expect((await post(account, `/${experienceId}/archive`)).status).toBe(200);
    expectError(await post(account, `/${experienceId}/publish`), 409, 'invalid_state');
    expectError(await call('PATCH', path(account, `/${experienceId}`), { token: account.apiKey, body: { name: 'x' } }), 409, 'invalid_state');
    const late = directEvent({ eventType: 'signup', clientUserId: 'a4' });
    await postSigned(connection, late);
    expect((await waitForEvent(account, late.messageId, 'PROCESSED')).routingOutcome).toMatchObject({ startedRuns: [] });
  });

  it('gets, filters and cancels runs; 409 on a run that has ended; 404 for another account’s', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const { experienceId } = await publishedExperience(
      account,
      experienceDefinition({
        nodes: [
          { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 3600, next: 'done', timeoutNext: 'done' },
          { id: 'done', type: 'exit' },
        ],
      }),
    );
    for (const person of ['r1', 'r2']) await postSigned(connection, directEvent({ eventType: 'signup', clientUserId: person }));
    const runs = await waitForRuns(account, experienceId, (found) => found.length === 2);
    const r1 = runs.find((run) => run.clientUserId === 'r1');
    expect((await listRuns(account, experienceId, '&clientUserId=r2')).map((run) => run.clientUserId)).toEqual(['r2']);

    const one = await call('GET', path(account, `/${experienceId}/runs/${r1.runId}`), { token: account.apiKey });
    expect(one.body).toMatchObject({ runId: r1.runId, status: 'running', currentNodeId: 'await', enteredAt: expect.any(String) });
    const cancelled = await post(account, `/${experienceId}/runs/${r1.runId}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', endReason: 'cancelled', endedAt: expect.any(String) });
    expectError(await post(account, `/${experienceId}/runs/${r1.runId}/cancel`), 409, 'invalid_state');
    expect((await listRuns(account, experienceId, '&status=running')).map((run) => run.clientUserId)).toEqual(['r2']);

    const stranger = await newAccount();
    expectError(await call('GET', `/accounts/${stranger.accountId}/experiences/${experienceId}`, { token: stranger.apiKey }), 404, 'not_found');
    expectError(await call('GET', `/accounts/${stranger.accountId}/experiences/${experienceId}/runs/${r1.runId}`, { token: stranger.apiKey }), 404, 'not_found');
    expectError(await call('GET', `/accounts/${account.accountId}/experiences/${experienceId}`, { token: stranger.apiKey }), 404, 'not_found');
    const r2 = runs.find((run) => run.clientUserId === 'r2');
    await post(account, `/${experienceId}/runs/${r2.runId}/cancel`);
  });
});
