import { ActivityFailure, condition, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { failureReason } from './failure-reason.ts';
import { ingestState, visitorLinked, type IngestEventInput, type IngestState } from './ingest-event.contract.ts';

const { recordInboundEvent, finishInboundEvent } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '1 minute', maximumAttempts: 20 },
});
// A released event waits its turn behind older ones of the same person (OlderEventsPending): retry soon and often.
const { routeInboundEvent } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 1.5, maximumInterval: '5 seconds', maximumAttempts: 200 },
});

/**
 * One accepted event, `ingest:<connectionId>:<messageId>`: links it to its visitor (or holds it until that person
 * is linked, for at most holdTtlHours), then hands it to routing.
 */
export async function ingestEvent(input: IngestEventInput): Promise<IngestState> {
  const { accepted } = input;
  let state: IngestState = { status: 'RECEIVED', visitorId: null };
  let linkedVisitor: string | undefined;
  setHandler(ingestState, () => state);
  setHandler(visitorLinked, ({ visitorId }) => {
    linkedVisitor ??= visitorId;
  });

  try {
    const link = await recordInboundEvent(accepted, input.config);
    if (link.outcome === 'ignored') return (state = { status: 'IGNORED', visitorId: null, reason: link.reason });
    let visitorId = link.outcome === 'linked' ? link.visitorId : null;
    const held = link.outcome === 'held';
    if (held) {
      state = { status: 'HELD', visitorId: null, reason: `waiting for visitor ${accepted.event.clientUserId}` };
      setCurrentDetails(`Held until visitor **${accepted.event.clientUserId}** is linked (at most ${input.config.holdTtlHours} h).`);
      const released = await condition(() => linkedVisitor !== undefined, input.config.holdTtlHours * 3_600_000);
      if (!released) {
        const reason = `no visitor ${accepted.event.clientUserId} was linked within ${input.config.holdTtlHours} hours`;
        await finishInboundEvent({ eventId: accepted.eventId, status: 'EXPIRED', reason });
        return (state = { status: 'EXPIRED', visitorId: null, reason });
      }
      visitorId = linkedVisitor!;
    }
    const outcome = await routeInboundEvent({ eventId: accepted.eventId, visitorId, released: held });
    state = { status: 'PROCESSED', visitorId, reason: outcome.reason };
    setCurrentDetails(`Processed: ${outcome.reason}.`);
    return state;
  } catch (error) {
    // A step that failed for good (a business failure, or out of attempts) marks the event FAILED. Anything else is
    // a bug in this code: it fails the workflow task, and the run resumes once a fixed worker is deployed.
    if (!(error instanceof ActivityFailure)) throw error;
    const reason = failureReason(error);
    await finishInboundEvent({ eventId: accepted.eventId, status: 'FAILED', reason });
    return (state = { status: 'FAILED', visitorId: null, reason });
  }
}
