import type { ExperienceDefinitionInput } from '../../src/domain/experiences/definition-schema.ts';

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
