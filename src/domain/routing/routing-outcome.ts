import { z } from 'zod';

/**
 * What routing decided for one event, stored on the event (GET /accounts/{accountId}/events shows it) and read back
 * when the decision is carried out again: the active experiences whose trigger it matched, the runs it started, and
 * the live runs of the same person it was handed to.
 */
export const routingOutcomeSchema = z.object({
  matchedExperiences: z.array(z.string()),
  startedRuns: z.array(z.string()),
  deliveredTo: z.array(z.string()),
  reason: z.string(),
});
export type RoutingOutcome = z.infer<typeof routingOutcomeSchema>;
