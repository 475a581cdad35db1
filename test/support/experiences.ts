import { randomUUID } from 'node:crypto';
import type { ExperienceDefinition } from '../../src/domain/experiences/definition-schema.ts';
import type { ExperienceRunInput } from '../../workflows/experience-run.contract.ts';
import type { ExperienceDefinitionInput } from '../../src/domain/experiences/definition-schema.ts';
import { allPages, call, type TestAccount } from './api.ts';
import { until } from './wait.ts';

/** A definition with sensible defaults around the given nodes (trigger on `signup`, never re-enter, no goals). */
export function experienceDefinition(overrides: Record<string, unknown> & { nodes: unknown[] }): Record<string, unknown> {
  return {
    name: 'Test experience',
    trigger: { eventType: 'signup', conditions: null },
    entry: { reentry: 'never' },
    goals: [],
    maxDurationSeconds: 3600,
    start: (overrides.nodes[0] as { id: string }).id,
    ...overrides,
  };
}

/** Creates an experience and publishes it; returns the published experience. */
export async function publishedExperience(account: TestAccount, definition: Record<string, unknown>): Promise<any> {
  const created = await call('POST', `/accounts/${account.accountId}/experiences`, { token: account.apiKey, body: { definition } });
  if (created.status !== 201) throw new Error(`experience creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  const published = await call('POST', `/accounts/${account.accountId}/experiences/${created.body.experienceId}/publish`, { token: account.apiKey });
  if (published.status !== 200) throw new Error(`publish failed: ${published.status} ${JSON.stringify(published.body)}`);
  return published.body;
}

export const listRuns = async (account: TestAccount, experienceId: string, query = ''): Promise<any[]> => {
  const page = await call('GET', `/accounts/${account.accountId}/experiences/${experienceId}/runs?limit=100${query}`, { token: account.apiKey });
  if (page.status !== 200) throw new Error(`runs list failed: ${page.status} ${JSON.stringify(page.body)}`);
  return page.body.items;
};

/** Every run of an experience, all pages. */
export const allRuns = (account: TestAccount, experienceId: string): Promise<any[]> =>
  allPages(`/accounts/${account.accountId}/experiences/${experienceId}/runs`, { token: account.apiKey });

/** Polls an experience's runs until the predicate holds; returns them. */
export const waitForRuns = (account: TestAccount, experienceId: string, predicate: (runs: any[]) => boolean, timeoutMs = 20_000): Promise<any[]> =>
  until(`the runs of experience ${experienceId} to match`, () => listRuns(account, experienceId), predicate, { timeoutMs });

export const sampleConnectionId = 'conn_Qm3xV0b9XkLr2Tq8HsYw1A';
export const sampleEndpointId = 'ep_Zt7Kp2LmN4xQ9bR1cW5vYg';

/** The example experience, with ids shaped like real ones; each call is a fresh copy to change. */
export function sampleDefinition(ids: { connectionId?: string; endpointId?: string } = {}): ExperienceDefinitionInput {
  return {
    name: 'Welcome',
    trigger: { eventType: 'signup', conditions: { all: [{ field: 'event.attributes.plan', op: 'eq', value: 'pro' }] } },
    entry: { reentry: 'never' },
    goals: [{ id: 'purchased', eventType: 'purchase', conditions: null, exit: true }],
    maxDurationSeconds: 2_592_000,
    start: 'welcome',
    nodes: [
      { id: 'welcome', type: 'webhook', result: { step: 'welcome', plan: '{{visitor.attributes.plan}}' }, next: 'wait1' },
      { id: 'wait1', type: 'wait', seconds: 86_400, next: 'check' },
      { id: 'check', type: 'condition', if: { field: 'visitor.attributes.country', op: 'in', value: ['DE', 'AT'] }, then: 'seg', else: 'done' },
      {
        id: 'seg',
        type: 'provider',
        connectionId: ids.connectionId ?? sampleConnectionId,
        call: 'track',
        event: 'Welcome Nudge',
        properties: { plan: '{{visitor.attributes.plan}}' },
        next: 'await',
      },
      { id: 'await', type: 'waitForEvent', eventType: 'app.opened', conditions: null, timeoutSeconds: 172_800, next: 'done', timeoutNext: 'split' },
      { id: 'split', type: 'split', branches: [{ percent: 50, next: 'done' }, { percent: 50, next: 'welcome2' }] },
      { id: 'welcome2', type: 'webhook', endpointId: ids.endpointId ?? sampleEndpointId, result: { step: 'second' }, next: 'done' },
      { id: 'done', type: 'exit' },
    ],
  };
}

/** A run's input for workflow tests: a fresh run of `definition` for a person, entered at `enteredAt`. */
export function experienceRunInput(definition: ExperienceDefinition, enteredAt: number, extra: Partial<ExperienceRunInput> = {}): ExperienceRunInput {
  return {
    version: 1,
    runId: `run_${randomUUID()}`,
    accountId: randomUUID(),
    experienceId: 'exp_test',
    experienceName: 'Workflow test',
    experienceVersion: 3,
    definition,
    visitorId: randomUUID(),
    clientUserId: 'u_wf',
    trigger: { eventId: 'iev_trigger', eventType: 'signup', occurredAt: new Date().toISOString() },
    enteredAt,
    ...extra,
  };
}
