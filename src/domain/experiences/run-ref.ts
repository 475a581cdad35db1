/** Who and what a run is, as its activities need it to read and write on its behalf. Plain JSON. */
export interface RunRef {
  runId: string;
  accountId: string;
  experienceId: string;
  visitorId: string | null;
  clientUserId: string | null;
  triggerEventId: string;
}
