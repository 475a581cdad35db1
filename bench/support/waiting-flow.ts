import type { ExperienceDefinitionInput } from '../../src/domain/experiences/definition-schema.ts';

/**
 * A flow whose runs wait a month for a purchase (an exit goal): the live runs a bench seeds, which take no work of
 * their own while the bench measures something else.
 */
export const waitingFlow = (name: string): ExperienceDefinitionInput => ({
  name,
  trigger: { eventType: 'visit' },
  entry: { reentry: 'never' },
  goals: [{ id: 'bought', eventType: 'purchase', exit: true }],
  start: 'wait',
  nodes: [
    { id: 'wait', type: 'wait', seconds: 30 * 86_400, next: 'done' },
    { id: 'done', type: 'exit' },
  ],
});
