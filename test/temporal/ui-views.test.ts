import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalUiViews } from '../../src/temporal/ui-links.ts';
import { newAccount } from '../support/api.ts';
import { cancelSend, createMessage, newAudience, scheduleSend, waitForSend } from '../support/campaigns.ts';
import { ok } from '../support/http-assertions.ts';
import { temporalClient, waitForRunClosed } from '../support/temporal.ts';
import { until } from '../support/wait.ts';

// The Temporal UI views `npm start` prints are the UI's list with a visibility query each; here each query runs
// against the suite's dev server, as the UI would run it. A send's run completes whatever the send's end, so only
// the send-state views tell a cancelled send from a sent one.

let temporal: Awaited<ReturnType<typeof temporalClient>>;
beforeAll(async () => {
  temporal = await temporalClient();
});
afterAll(() => temporal?.close());

/** The names of the views whose query lists the run `workflowId`. */
async function viewsListing(workflowId: string): Promise<string[]> {
  const listing: string[] = [];
  for (const view of temporalUiViews) {
    for await (const run of temporal.client.workflow.list({ query: `(${view.query}) AND WorkflowId = "${workflowId}"` })) {
      if (run.workflowId === workflowId) listing.push(view.name);
    }
  }
  return listing;
}

describe("npm start's Temporal UI views", () => {
  it('list a cancelled send and a sent one apart, by SendState, though both runs completed', { timeout: 90_000 }, async () => {
    const account = await newAccount();
    const { segment } = await newAudience(account, 1);
    const cancelled = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    const sent = await createMessage(account, { type: 'PUSH', filterId: segment.id });
    ok(await scheduleSend(account, cancelled.id, { playTime: Date.now() + 3_600_000 }));
    ok(await cancelSend(account, cancelled.id));
    ok(await scheduleSend(account, sent.id, { playTime: Date.now() + 1000 }));
    await waitForSend(account, sent.id, (send) => send.state === 'SENT');
    for (const id of [cancelled.id, sent.id]) await waitForRunClosed(temporal.client, `send:${id}`, 30_000);

    // Visibility lags a run's close a little: wait until each run is listed by its state's view.
    const expected = {
      [`send:${cancelled.id}`]: ['message sends', 'sends CANCELLED'],
      [`send:${sent.id}`]: ['message sends', 'sends SENT'],
    };
    for (const [workflowId, views] of Object.entries(expected)) {
      const listing = await until(`${workflowId} listed by ${views.join(', ')}`, () => viewsListing(workflowId), (names) => views.every((view) => names.includes(view)));
      expect(listing).toEqual(views);
    }
  });
});
