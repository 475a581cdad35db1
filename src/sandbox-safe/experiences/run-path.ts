// A run's path: what the run's workflow reports, what routing's first steps write, and what the run's row stores.
// Pure types: the experience workflow's contract and the interpreter of flows share them.

/** One step of a run's path: the node, when the run left it, and what happened there. */
export interface PathStep {
  nodeId: string;
  type: string;
  /** ISO 8601. */
  at: string;
  outcome: string;
}
