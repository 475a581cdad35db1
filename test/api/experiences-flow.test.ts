import { describe, expect, it } from 'vitest';
import { newAccount } from '../support/api.ts';
import { flow, publishedExperience, waitForRuns } from '../support/experiences.ts';
import { directEvent, newConnection, postSigned, waitForEvent } from '../support/ingest.ts';
import { newEndpoint } from '../support/webhooks.ts';
import { verifyWith } from '../support/deliveries.ts';

describe('experience runs', () => {
  it('trigger → webhook → goal → ended, with signed envelopes and the path', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const connection = await newConnection(account);
    const endpoint = await newEndpoint(account, ['experience.action', 'experience.goal.reached', 'experience.ended']);
    try {
      const experience = await publishedExperience(
        account,
        flow({
          goals: [{ id: 'purchased', eventType: 'purchase', conditions: null, exit: true }],
          nodes: [
            { id: 'welcome', type: 'webhook', result: { step: 'welcome', plan: '{{event.attributes.plan}}' }, next: 'await' },
            { id: 'await', type: 'waitForEvent', eventType: 'never.comes', conditions: null, timeoutSeconds: 600, next: 'done', timeoutNext: 'done' },
            { id: 'done', type: 'exit' },
          ],
        }),
      );
      const signup = directEvent({ eventType: 'signup', clientUserId: 'u_flow_1', attributes: { plan: 'pro' } });
      expect((await postSigned(connection, signup)).status).toBe(202);
      await endpoint.receiver.waitForRequests(1);
      const action = verifyWith(endpoint.secret, endpoint.receiver.requests[0]!);
      expect(action).toMatchObject({
        type: 'experience.action',
        experienceId: experience.experienceId,
        accountId: account.accountId,
        data: { clientUserId: 'u_flow_1', visitorId: expect.any(String), result: { step: 'welcome', plan: 'pro', nodeId: 'welcome' } },
      });

      const [waiting] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.currentNodeId === 'await' && runs[0]?.path.length === 1);
      expect(waiting).toMatchObject({ status: 'running', clientUserId: 'u_flow_1', version: 1 });

      const purchase = directEvent({ eventType: 'purchase', clientUserId: 'u_flow_1' });
      expect((await postSigned(connection, purchase)).status).toBe(202);
      const [ended] = await waitForRuns(account, experience.experienceId, (runs) => runs[0]?.status !== 'running');
      expect(ended).toMatchObject({ status: 'goal_reached', endReason: 'goal_reached', currentNodeId: 'await' });
      expect(ended.path.map((step: { nodeId: string }) => step.nodeId)).toEqual(['welcome', 'goal:purchased']);

      await endpoint.receiver.waitForRequests(3);
      const types = endpoint.receiver.requests.map((request) => verifyWith(endpoint.secret, request).type);
      expect(types.sort()).toEqual(['experience.action', 'experience.ended', 'experience.goal.reached']);
      const processed = await waitForEvent(account, purchase.messageId, 'PROCESSED');
      expect(processed.routingOutcome).toMatchObject({ deliveredTo: [ended.runId], startedRuns: [] });
    } finally {
      await endpoint.receiver.close();
    }
  });
});
