import { Link } from 'wouter';
import { CopyAsCurl } from '../../components/copy-as-curl.tsx';
import { ErrorMessage } from '../../components/error-message.tsx';
import { formatTime } from '../../components/format.ts';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { useAccountId, useTemporalUi } from '../../session/use-account-id.ts';
import { explainSkipped, explainSteps } from './explain-path.ts';
import type { FlowNode } from './flow-graph-layout.ts';
import { useExperience, useRun, type Run } from './flow-queries.ts';

/** The run's workflow in the Temporal UI, when the service says where that is (TEMPORAL_UI_URL). */
function WorkflowLink({ workflowId }: { workflowId: string | null }) {
  const ui = useTemporalUi();
  if (workflowId === null) return <p>No workflow: routing took every step of this run when it entered.</p>;
  if (!ui) {
    return (
      <p>
        Workflow <code>{workflowId}</code> (set <code>TEMPORAL_UI_URL</code> for a link to the Temporal UI)
      </p>
    );
  }
  const href = `${ui.url}/namespaces/${encodeURIComponent(ui.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return (
    <p>
      <a href={href} rel="noreferrer">
        Open workflow {workflowId} in the Temporal UI
      </a>
    </p>
  );
}

function PathSteps({ run, nodes }: { run: Run; nodes: FlowNode[] }) {
  const skipped = explainSkipped(run, nodes);
  return (
    <>
      <ol className="path">
        {explainSteps(run, nodes).map(({ step, why, then }) => (
          <li key={`${step.nodeId}-${step.at}`} data-node-id={step.nodeId}>
            <strong className="path-node">{step.nodeId}</strong> <span className="hint">{step.type}</span> · <time dateTime={step.at}>{formatTime(step.at)}</time>
            <div className="path-outcome">{step.outcome}</div>
            <div className="path-why">
              {why}
              {then && <> → {then}</>}
            </div>
          </li>
        ))}
      </ol>
      {skipped.length > 0 && (
        <>
          <h3>Nodes not on the path</h3>
          <ul className="skipped">
            {skipped.map(({ nodeId, why }) => (
              <li key={nodeId} data-node-id={nodeId}>
                <strong>{nodeId}</strong>: {why}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** A person's run through a flow: each step with what happened and why, the nodes it skipped, and its workflow. */
export default function RunPage({ experienceId, runId }: { experienceId: string; runId: string }) {
  const accountId = useAccountId();
  const flow = useExperience(accountId, experienceId);
  const run = useRun(accountId, experienceId, runId);
  const person = run.data ? (run.data.clientUserId ?? 'an anonymous person') : 'a person';
  useDocumentTitle(`Path of ${person}`);
  const error = flow.error ?? run.error;

  return (
    <>
      <p>
        <Link href={`/flows/${experienceId}`}>← {flow.data?.name ?? 'The flow'}</Link>
      </p>
      {error && <ErrorMessage error={error} />}
      {(flow.isPending || run.isPending) && <p role="status">Loading the run…</p>}
      {flow.data && run.data && (
        <>
          <h1>Path of {person}</h1>
          <p>
            State <strong>{run.data.status}</strong> · version {run.data.version} · entered {formatTime(run.data.enteredAt)}
            {run.data.endedAt && (
              <>
                {' '}
                · ended {formatTime(run.data.endedAt)} ({run.data.endReason}
                {run.data.endDetail ? `: ${run.data.endDetail}` : ''})
              </>
            )}
          </p>
          <WorkflowLink workflowId={run.data.workflowId} />
          <section aria-labelledby="run-path">
            <h2 id="run-path">Steps, oldest first</h2>
            {run.data.path.length === 0 && <p>No step taken yet.</p>}
            <PathSteps run={run.data} nodes={flow.data.definition.nodes} />
          </section>
          <CopyAsCurl request={{ method: 'GET', path: `/accounts/${accountId}/experiences/${experienceId}/runs/${runId}` }} />
        </>
      )}
    </>
  );
}
