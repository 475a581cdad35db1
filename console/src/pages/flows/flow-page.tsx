import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatClock, formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useAccountId } from '../../session/use-account-id.ts';
import { FlowGraph } from './flow-graph.tsx';
import { useExperience, useNodeCounts, type Experience } from './flow-queries.ts';
import { NodeCountsTable } from './node-counts-table.tsx';
import { RunsSection } from './runs-section.tsx';

function FlowFields({ flow }: { flow: Experience }) {
  const fields: Array<[string, string]> = [
    ['Status', flow.status],
    ['Version', flow.version === null ? 'never published' : String(flow.version)],
    ['Trigger', flow.definition.trigger.eventType],
    ['Re-entry', flow.definition.entry.reentry],
    ['Goals', flow.definition.goals.map((goal) => `${goal.id} (${goal.eventType}${goal.exit ? ', exits' : ''})`).join(', ') || '—'],
    ['Published', formatTime(flow.publishedAt)],
    ['Id', flow.experienceId],
  ];
  return (
    <dl className="fields">
      {fields.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One flow: its fields, its definition as a graph with each node's counts (and the same as a table), its runs. */
export default function FlowPage({ id }: { id: string }) {
  const accountId = useAccountId();
  const flow = useExperience(accountId, id);
  const counts = useNodeCounts(accountId, id);
  useDocumentTitle(flow.data?.name ?? 'Flow');
  const types = new Map(flow.data?.definition.nodes.map((node) => [node.id, node.type]));

  return (
    <>
      <p>
        <Link href="/flows">← Flows</Link>
      </p>
      {flow.error && <ErrorMessage error={flow.error} />}
      {flow.isPending && <p role="status">Loading the flow…</p>}
      {flow.data && (
        <>
          <h1>{flow.data.name}</h1>
          <FlowFields flow={flow.data} />
          <section aria-labelledby="flow-graph">
            <h2 id="flow-graph">Where people are</h2>
            {counts.error && <ErrorMessage error={counts.error} />}
            <p className="hint" aria-live="polite">
              {counts.data ? `As of ${formatClock(counts.dataUpdatedAt)}` : 'Counting…'}
            </p>
            <div className="flow-graph-frame">
              <FlowGraph nodes={flow.data.definition.nodes} start={flow.data.definition.start} counts={counts.data} />
            </div>
            {counts.data && <NodeCountsTable counts={counts.data} types={types} />}
            <CopyAsCurl request={{ method: 'GET', path: `/accounts/${accountId}/experiences/${id}/node-counts` }} />
          </section>
          <RunsSection accountId={accountId} experienceId={id} />
        </>
      )}
    </>
  );
}
