import type { CampaignEndState } from '../../workflows/campaign-send.contract.ts';

/**
 * How a message's send ends. Its run completes normally whichever it is (a cancelled or expired send is not a failed
 * run), so the UI's status column says Completed for all four: the send's own state is its `SendState`.
 */
const sendEndStates = ['SENT', 'CANCELLED', 'EXPIRED', 'FAILED'] as const satisfies readonly CampaignEndState[];

/**
 * Temporal UI list views filtered to the runs people look for. Unfiltered, the list is mostly delivery and ingest
 * batches; these queries use the search attributes every run sets (src/sandbox-safe/search-attributes.ts).
 */
export const temporalUiViews = [
  { name: 'recording jobs', query: 'EntityType="job"' },
  { name: 'recording files', query: 'EntityType="file"' },
  { name: 'A/B tests', query: 'EntityType="abtest"' },
  { name: 'message sends', query: 'EntityType="send"' },
  ...sendEndStates.map((state) => ({ name: `sends ${state}`, query: `EntityType="send" AND SendState="${state}"` })),
  { name: 'experience runs', query: 'EntityType="experience-run"' },
  { name: 'failed runs', query: 'ExecutionStatus="Failed" OR ExecutionStatus="TimedOut"' },
] as const;

/** The UI's list of a namespace's runs, filtered by a visibility query. */
export function temporalUiListUrl(uiBaseUrl: string, namespace: string, query: string): string {
  return `${uiBaseUrl}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
}
